package shimtest

// Finding the registry in a live process or a core file is the tests' job
// alone: in a debugger, gdb looks up mpidbg_registry itself and hands its
// address to the gdb helper.

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Symbol is the one exported symbol through which the registry is found.
const Symbol = "mpidbg_registry"

// Mapping is one file mapped into a process: [Start, End) holds the file's
// bytes from Offset on.
type Mapping struct {
	Start, End, Offset uint64
	Path               string
}

// ErrNoShim is returned when no mapping holds the mpidbg shim: the process
// was not run under mpidbg.
var ErrNoShim = errors.New("no mpidbg shim (libmpidbg*.so) is mapped")

// Locate finds the address of mpidbg_registry from a process's mappings:
// the shim's load bias (where its first segment was mapped, less that
// segment's link-time address) plus the symbol's value in the shim's ELF
// symbol table.
func Locate(maps []Mapping) (uint64, error) {
	for _, m := range maps {
		if m.Offset != 0 || !strings.HasPrefix(filepath.Base(m.Path), "libmpidbg") {
			continue
		}
		f, err := elf.Open(m.Path)
		if err != nil {
			return 0, fmt.Errorf("registry: %w", err)
		}
		defer f.Close()
		var value uint64
		found := false
		for _, get := range []func() ([]elf.Symbol, error){f.DynamicSymbols, f.Symbols} {
			syms, _ := get()
			for _, s := range syms {
				if s.Name == Symbol {
					value, found = s.Value, true
				}
			}
			if found {
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("registry: %s has no symbol %s", m.Path, Symbol)
		}
		var first uint64
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD {
				first = p.Vaddr &^ (p.Align - 1)
				if p.Align == 0 {
					first = p.Vaddr
				}
				break
			}
		}
		return value + m.Start - first, nil
	}
	return 0, ErrNoShim
}

// Proc reads a live process's memory through /proc/PID/mem. The caller
// needs ptrace permission for the process (same user, and stopped or
// attached where Yama requires it).
type Proc struct {
	PID int
	mem *os.File
}

// OpenProc opens process pid's memory.
func OpenProc(pid int) (*Proc, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	return &Proc{PID: pid, mem: f}, nil
}

func (p *Proc) ReadAt(b []byte, addr uint64) error {
	n, err := p.mem.ReadAt(b, int64(addr))
	if n == len(b) {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("short read of %d of %d bytes", n, len(b))
	}
	return err
}

func (p *Proc) Close() error { return p.mem.Close() }

// Mappings reads /proc/PID/maps.
func (p *Proc) Mappings() ([]Mapping, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", p.PID))
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	var out []Mapping
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		// start-end perms offset dev inode path
		f := strings.Fields(s.Text())
		if len(f) < 6 {
			continue
		}
		r := strings.SplitN(f[0], "-", 2)
		start, err1 := strconv.ParseUint(r[0], 16, 64)
		end, err2 := strconv.ParseUint(r[len(r)-1], 16, 64)
		off, err3 := strconv.ParseUint(f[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, Mapping{Start: start, End: end, Offset: off, Path: strings.Join(f[5:], " ")})
	}
	return out, nil
}

// Core reads a process's memory from its ELF core file (a kernel core dump
// or gdb's gcore): the PT_LOAD segments, with the bytes a segment does not
// carry in the file reading as zero.
type Core struct {
	f    *elf.File
	maps []Mapping
}

// OpenCore opens a core file and reads its list of mapped files (the
// NT_FILE note).
func OpenCore(path string) (*Core, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	if f.Type != elf.ET_CORE {
		f.Close()
		return nil, fmt.Errorf("registry: %s is an ELF %s file, not a core file", path, f.Type)
	}
	c := &Core{f: f}
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			continue
		}
		c.maps = append(c.maps, ntFile(b, f.ByteOrder)...)
	}
	return c, nil
}

// ntFile decodes the NT_FILE notes in a note segment (the layout of
// Linux's fill_files_note: count, page size, count triples of start, end
// and page offset, then count NUL-terminated paths; 64-bit words).
func ntFile(b []byte, bo binary.ByteOrder) []Mapping {
	const ntFileType = 0x46494c45
	var out []Mapping
	for len(b) >= 12 {
		namesz, descsz, typ := bo.Uint32(b), bo.Uint32(b[4:]), bo.Uint32(b[8:])
		nameEnd := 12 + (int(namesz)+3)&^3
		descEnd := nameEnd + (int(descsz)+3)&^3
		if nameEnd > len(b) || descEnd > len(b) || descEnd < nameEnd {
			break
		}
		if typ == ntFileType && descsz >= 16 {
			d := b[nameEnd : nameEnd+int(descsz)]
			count, page := bo.Uint64(d), bo.Uint64(d[8:])
			if count < 1<<20 && 16+count*24 <= uint64(len(d)) {
				names := strings.Split(string(d[16+count*24:]), "\x00")
				for i := uint64(0); i < count && i < uint64(len(names)); i++ {
					e := d[16+i*24:]
					out = append(out, Mapping{Start: bo.Uint64(e), End: bo.Uint64(e[8:]), Offset: bo.Uint64(e[16:]) * page, Path: names[i]})
				}
			}
		}
		b = b[descEnd:]
	}
	return out
}

// Mappings returns the files mapped into the process when it dumped core.
func (c *Core) Mappings() []Mapping { return c.maps }

func (c *Core) ReadAt(b []byte, addr uint64) error {
	for _, p := range c.f.Progs {
		if p.Type != elf.PT_LOAD || addr < p.Vaddr || addr-p.Vaddr >= p.Memsz || uint64(len(b)) > p.Memsz-(addr-p.Vaddr) {
			continue
		}
		off := addr - p.Vaddr
		clear(b)
		if off < p.Filesz {
			n := min(uint64(len(b)), p.Filesz-off)
			if _, err := p.ReadAt(b[:n], int64(off)); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("address %#x (%d bytes) is not in the core file", addr, len(b))
}

func (c *Core) Close() error { return c.f.Close() }
