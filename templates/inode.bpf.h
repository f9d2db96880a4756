/* SPDX-License-Identifier: MIT */
/*
 * A file as the runtime names it (struct dc_file_id), from the kernel's
 * struct file. Fields are read, not walked: the verifier checks a walk
 * against all of vmlinux's BTF, milliseconds of every start.
 */
#ifndef DC_INODE_BPF_H
#define DC_INODE_BPF_H

#include "datacrumbs.bpf.h"

#define DC_S_IFMT  0170000
#define DC_S_IFREG 0100000

/* @file's inode and device into @id; its mode, or 0 with no inode. */
static __always_inline unsigned short dc_file_id(struct file *file,
						 struct dc_file_id *id)
{
	struct inode *inode = NULL;
	struct super_block *sb = NULL;
	unsigned short mode = 0;

	if (file)
		bpf_probe_read_kernel(&inode, sizeof(inode), &file->f_inode);
	if (!inode)
		return 0;
	bpf_probe_read_kernel(&mode, sizeof(mode), &inode->i_mode);
	bpf_probe_read_kernel(&id->ino, sizeof(id->ino), &inode->i_ino);
	bpf_probe_read_kernel(&sb, sizeof(sb), &inode->i_sb);
	if (sb)
		bpf_probe_read_kernel(&id->dev, sizeof(id->dev), &sb->s_dev);
	return mode;
}

#endif /* DC_INODE_BPF_H */
