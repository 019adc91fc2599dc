package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteTable writes one table per size: a row per system with its build
// rate, size on disk per chunk, open time, resident memory and p50 / p99
// per mode, a peer's p99 followed by its ratio to cite's in the same mode
// (cite's p99 ÷ the peer's: above 1, the peer is faster).
func WriteTable(w io.Writer, rep *Report) error {
	fmt.Fprintf(w, "embedder %s (%d dims), %d CPUs, %s, cite commit %s\n", rep.Embedder, rep.Dim, rep.CPUs, rep.Go, rep.Commit)
	for _, sz := range rep.Sizes {
		fmt.Fprintf(w, "\n%s chunks (target %s): %d files, %.1f MB of Markdown, %d queries, load average %s\n",
			group(sz.Chunks), group(sz.Target), sz.Files, float64(sz.CorpusBytes)/1e6, sz.Queries, sz.Load)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "system\tbuild MB/s\tdisk B/chunk\topen ms\tRSS MB")
		for _, m := range Modes {
			fmt.Fprintf(tw, "\t%s p50 / p99 ms", m)
		}
		fmt.Fprintln(tw)
		var cite *System
		for i := range sz.Systems {
			if sz.Systems[i].Name == "cite" {
				cite = &sz.Systems[i]
			}
		}
		var notes []string
		for _, s := range sz.Systems {
			if s.Skipped {
				notes = append(notes, fmt.Sprintf("%s: %s", s.Name, s.Note))
				continue
			}
			if s.Note != "" && s.Note != "ok" {
				notes = append(notes, fmt.Sprintf("%s: %s", s.Name, s.Note))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s", s.Name, rate(s.BuildMBps), perChunk(s.DiskBytes, sz.Chunks), openMS(s.OpenMS), mb(s.RSSBytes))
			for _, m := range Modes {
				l, ok := s.Latency[m]
				if !ok {
					fmt.Fprint(tw, "\t—")
					continue
				}
				fmt.Fprintf(tw, "\t%s / %s", num(l.P50), num(l.P99))
				if cite != nil && !strings.HasPrefix(s.Name, "cite") {
					if c, ok := cite.Latency[m]; ok && l.P99 > 0 {
						fmt.Fprintf(tw, " (%.2f×)", c.P99/l.P99)
					}
				}
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, n := range notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
		var loads []string
		for _, s := range sz.Systems {
			if s.Load != "" && !s.Skipped {
				loads = append(loads, s.Name+" "+s.Load)
			}
		}
		if len(loads) > 0 {
			fmt.Fprintf(w, "  load average during each part: %s\n", strings.Join(loads, "; "))
		}
	}
	fmt.Fprintln(w, "\n(×) is cite's p99 ÷ the peer's in the same mode: above 1 the peer is faster at p99.")
	return nil
}

func mb(bytes int64) string {
	if bytes < 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f", float64(bytes)/1e6)
}

// perChunk is bytes per chunk; -1 bytes is "in memory", other negative
// values unknown.
func perChunk(bytes int64, chunks int) string {
	switch {
	case bytes == -1:
		return "in memory"
	case bytes < 0:
		return "?"
	}
	if chunks == 0 {
		return "?"
	}
	return group(int(float64(bytes) / float64(chunks)))
}

// rate is a build rate in MB/s ("—" for a system that builds nothing).
func rate(v float64) string {
	if v <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", v)
}

func openMS(v float64) string {
	if v < 0 {
		return "—"
	}
	return num(v)
}

// num formats milliseconds with about three significant digits.
func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// group writes n with thousands separators.
func group(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[0] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
