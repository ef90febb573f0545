package install

import (
	"io/fs"
	"syscall"
)

// inode is info's inode number and status-change time.
func inode(info fs.FileInfo) (uint64, [2]int64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, [2]int64{}
	}
	return st.Ino, [2]int64{int64(st.Ctim.Sec), int64(st.Ctim.Nsec)}
}
