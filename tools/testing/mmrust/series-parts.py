#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A new file of the series added in parts (patches/overlay: "+ <path> /<regex>/").

The file is cut into blocks: a line that starts in column 0 opens a block,
indented lines (Kconfig help, a comment's " * " lines) stay in the block
above them, and blank lines are breaks between blocks.  A regex claims the
blocks whose first line it matches (re.search).

  series-parts.py write <file> <regexes>     the file as the regexes claimed
                                             so far give it (blocks in the
                                             file's order, a break where any
                                             lay between two of them)
  series-parts.py complete <file> <regexes>  fail unless every block is claimed

Either fails when a regex claims nothing or a block is claimed twice.
"""
import re
import sys


def blocks(text):
    """[(lines, break_before)]: the blocks of text and whether a blank line precedes each."""
    out, pending_break = [], False
    for line in text.splitlines(keepends=True):
        if not line.strip():
            pending_break = True
        elif line[0] in " \t" and out:
            # Still the block above, after a blank line too (a help text's
            # second paragraph, the blank line inside it).
            if pending_break:
                out[-1][0].append("\n")
            out[-1][0].append(line)
            pending_break = False
        else:
            out.append(([line], pending_break))
            pending_break = False
    return out, pending_break


def claims(path, regexes):
    text = open(path).read()
    bl, trailing = blocks(text)
    owner = [None] * len(bl)
    for i, rx in enumerate(regexes):
        hit = False
        for j, (lines, _) in enumerate(bl):
            if re.search(rx, lines[0].rstrip("\n")):
                if owner[j] is not None:
                    sys.exit(f"{path}: block '{lines[0].strip()}' claimed by /{regexes[owner[j]]}/ and /{rx}/")
                owner[j] = i
                hit = True
        if not hit:
            sys.exit(f"{path}: /{rx}/ claims no block")
    return text, bl, owner, trailing


def main():
    mode, path, state = sys.argv[1:4]
    regexes = [r for r in open(state).read().split("\n") if r]
    text, bl, owner, trailing = claims(path, regexes)
    if mode == "complete":
        left = [lines[0].strip() for (lines, _), o in zip(bl, owner) if o is None]
        if left:
            sys.exit(f"{path}: blocks in no patch: {left}")
        return
    out, brk, first = [], False, True
    for (lines, before), o in zip(bl, owner):
        brk = brk or before
        if o is None:
            continue
        if brk and not first:
            out.append("\n")
        out.extend(lines)
        brk, first = False, False
    if trailing and all(o is not None for o in owner[-1:]):
        out.append("\n")
    result = "".join(out)
    if None not in owner and result != text:
        sys.exit(f"{path}: the blocks do not give the file back")
    sys.stdout.write(result)


if __name__ == "__main__":
    main()
