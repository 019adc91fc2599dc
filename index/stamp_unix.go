//go:build linux || darwin

package index

import "golang.org/x/sys/unix"

// statFile returns the stamp of a file ([fileStamp]).
func statFile(name string) (fileStamp, bool) {
	var st unix.Stat_t
	if err := unix.Stat(name, &st); err != nil {
		return fileStamp{}, false
	}
	return fileStamp{
		Dev:      uint64(st.Dev),
		Ino:      uint64(st.Ino),
		Size:     st.Size,
		ModNs:    st.Mtim.Nano(),
		ChangeNs: st.Ctim.Nano(),
	}, true
}
