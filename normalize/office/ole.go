package office

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"

	"github.com/cite-rag/cite/normalize"
)

// oleMagic starts a Microsoft compound file (OLE2, "Compound File Binary"):
// the container of an encrypted Office Open XML package and of the old
// binary Word, PowerPoint and Excel formats.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// oleError says why a compound file is not read: an encrypted DOCX, PPTX
// or XLSX (its EncryptionInfo and EncryptedPackage streams, [MS-OFFCRYPTO])
// wraps [normalize.ErrEncrypted]; an old binary Word, PowerPoint or Excel
// file (a Workbook stream, or Excel 5's Book) wraps
// [normalize.ErrUnsupported] and says what to save it as; a damaged one is
// an [ErrDamaged]. It is nil for any other compound file (an Outlook
// message).
func oleError(data []byte) error {
	names, err := oleNames(data)
	if err != nil {
		return err
	}
	has := func(n string) bool {
		for _, s := range names {
			if s == n {
				return true
			}
		}
		return false
	}
	switch {
	case has("EncryptionInfo") && has("EncryptedPackage"):
		return fmt.Errorf("%w (a password-protected Office document)", normalize.ErrEncrypted)
	case has("WordDocument"):
		return fmt.Errorf("%w: old binary Word format (.doc); save it as .docx", normalize.ErrUnsupported)
	case has("PowerPoint Document"):
		return fmt.Errorf("%w: old binary PowerPoint format (.ppt); save it as .pptx", normalize.ErrUnsupported)
	case has("Workbook") || has("Book"):
		return fmt.Errorf("%w: old binary Excel format (.xls); save it as .xlsx", normalize.ErrUnsupported)
	}
	return nil
}

// oleNames returns the names of the storages and streams in a compound
// file's directory. It follows the header's DIFAT to the FAT, and the FAT
// from the first directory sector; every chain is bounded by the number of
// sectors in data, so a loop or an index out of range is an [ErrDamaged].
func oleNames(data []byte) ([]string, error) {
	damaged := func(why string) error { return fmt.Errorf("%w: compound file: %s", ErrDamaged, why) }
	if len(data) < 512 || !bytes.HasPrefix(data, oleMagic) {
		return nil, damaged("shorter than its header")
	}
	le := binary.LittleEndian
	shift := le.Uint16(data[0x1E:])
	if shift != 9 && shift != 12 {
		return nil, damaged(fmt.Sprintf("sector shift %d", shift))
	}
	size := 1 << shift
	if len(data) < 2*size {
		return nil, damaged("shorter than two sectors")
	}
	sectors := (len(data) - size) / size // whole sectors after the header's
	sector := func(n uint32) []byte {
		if n >= uint32(sectors) {
			return nil
		}
		off := (int(n) + 1) * size
		return data[off : off+size]
	}
	const endOfChain, free = 0xFFFFFFFE, 0xFFFFFFFF

	// The FAT's sectors: 109 in the header, then a chain of DIFAT sectors.
	var fatSectors []uint32
	for i := range 109 {
		if s := le.Uint32(data[0x4C+4*i:]); s < endOfChain {
			fatSectors = append(fatSectors, s)
		}
	}
	next := le.Uint32(data[0x44:])
	for steps := 0; next < endOfChain; steps++ {
		b := sector(next)
		if b == nil || steps > sectors {
			return nil, damaged("DIFAT chain out of the file")
		}
		for i := 0; i < size/4-1; i++ {
			if s := le.Uint32(b[4*i:]); s < endOfChain {
				fatSectors = append(fatSectors, s)
			}
		}
		next = le.Uint32(b[size-4:])
	}
	if len(fatSectors) > sectors {
		return nil, damaged("more FAT sectors than sectors")
	}
	fat := make([]uint32, 0, len(fatSectors)*size/4)
	for _, s := range fatSectors {
		b := sector(s)
		if b == nil {
			return nil, damaged("FAT sector out of the file")
		}
		for i := 0; i < size; i += 4 {
			fat = append(fat, le.Uint32(b[i:]))
		}
	}

	var names []string
	s := le.Uint32(data[0x30:])
	for steps := 0; s != endOfChain; steps++ {
		b := sector(s)
		if b == nil || steps > sectors || int(s) >= len(fat) {
			return nil, damaged("directory chain out of the file")
		}
		for off := 0; off+128 <= size; off += 128 {
			e := b[off : off+128]
			n := int(le.Uint16(e[0x40:]))
			if t := e[0x42]; (t != 1 && t != 2 && t != 5) || n < 2 || n > 64 || n%2 != 0 {
				continue // unused, or not a storage or stream
			}
			u := make([]uint16, 0, n/2-1)
			for i := 0; i < n-2; i += 2 {
				u = append(u, le.Uint16(e[i:]))
			}
			names = append(names, string(utf16.Decode(u)))
		}
		s = fat[s]
		if s == free {
			return nil, damaged("directory chain ends in a free sector")
		}
	}
	return names, nil
}
