/* SPDX-License-Identifier: GPL-2.0 */
/* Empty: nothing of it is used in user space. */
