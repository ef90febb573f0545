package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// junitFormat is junit.xml.
var junitFormat = Format{
	Name: "junit", Help: record.JUnitFile, File: record.JUnitFile, Output: "junit", Baseline: true,
	Results: func(w io.Writer, r *tally.Results, in Inputs) error { return JUnitCompared(w, r, in.Baseline) },
}

// JUnit writes junit.xml from results.json alone: JUnitCompared with no baseline.
func JUnit(w io.Writer, r *tally.Results) error { return JUnitCompared(w, r, nil) }

// JUnitCompared writes junit.xml in the Jenkins (Ant) JUnit format that CI report tools read:
// one testsuite per schema mode (and protocol and transport), one testcase per cell (never one
// per run), the cell's outcome counts as its properties, a failure for each unmet expectation
// that selects it and, with cmp, for its change against the baseline (a cell gone since the
// baseline is a failing testcase of its own); a cell with no finished run is skipped. The
// counts in the properties are results.json's.
func JUnitCompared(w io.Writer, r *tally.Results, cmp *Comparison) error {
	doc := junitSuites{Name: "toolscore: " + line(r.Scenario)}
	suites := map[string]*junitSuite{}
	var order []string
	for _, tc := range testCases(r, cmp) {
		s, ok := suites[tc.Suite]
		if !ok {
			s = &junitSuite{Name: tc.Suite, Timestamp: stamp(r)}
			s.Properties = &junitProperties{}
			if r.Toolscore != "" {
				s.Properties.Property = append(s.Properties.Property, junitProperty{"toolscore", line(r.Toolscore)})
			}
			if r.Backend != "" {
				s.Properties.Property = append(s.Properties.Property, junitProperty{"backend", line(r.Backend)})
			}
			if len(s.Properties.Property) == 0 {
				s.Properties = nil
			}
			suites[tc.Suite] = s
			order = append(order, tc.Suite)
		}
		c := tc.Cell
		jc := junitCase{Name: line(tc.Name), Classname: tc.Suite, Time: seconds(c.MedianMillis)}
		props := []junitProperty{{"runs", strconv.Itoa(c.Runs)}, {"planned", strconv.Itoa(c.Planned)}}
		for _, o := range byCount(c) {
			props = append(props, junitProperty{"outcome." + line(o), strconv.Itoa(c.Outcome[o])})
		}
		if c.Library != "" {
			props = append(props, junitProperty{"library", line(c.Library)})
		}
		if c.IsMixed() {
			props = append(props, junitProperty{"mixed", "true"})
		}
		props = append(props, junitProperty{"median_ms", strconv.FormatInt(c.MedianMillis, 10)})
		if c.ReusedFrom != nil {
			// A reused cell's timing and counts are those of the sweep that ran it.
			props = append(props, junitProperty{"reused_from", c.ReusedFrom.UTC().Format(time.RFC3339)})
			if c.CacheKey != "" {
				props = append(props, junitProperty{"cache_key", line(c.CacheKey)})
			}
			if c.PartlyReused() {
				// A merge of a shard that reused its slice with one that ran its own.
				props = append(props, junitProperty{"runs_reused", strconv.Itoa(c.Reused())})
			}
		}
		jc.Properties = &junitProperties{Property: props}
		for _, f := range tc.Failures {
			jc.Failures = append(jc.Failures, junitFailure{Message: f.Message, Type: f.Type, Text: f.Detail})
		}
		if c.Runs == 0 && len(tc.Failures) == 0 {
			jc.Skipped = &junitSkipped{Message: "no run of this cell finished in this sweep"}
			s.Skipped++
		}
		if c.Runs > 0 {
			jc.SystemOut = line(countsOf(c))
		}
		if len(jc.Failures) > 0 {
			s.Failures++
			doc.Failures++
		}
		s.Tests++
		doc.Tests++
		s.Time += c.MedianMillis
		doc.Time += c.MedianMillis
		s.Cases = append(s.Cases, jc)
	}
	for _, name := range order {
		s := suites[name]
		s.TimeText = seconds(s.Time)
		doc.Suites = append(doc.Suites, *s)
	}
	doc.TimeText = seconds(doc.Time)
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing junit.xml: %w", err)
	}
	b.WriteString("\n")
	// encoding/xml writes line breaks in text as &#xA;, so no line of the file starts with a
	// workflow command; the legacy "##[" form is broken with a character reference, which
	// reads back as the same text.
	_, err := w.Write(bytes.ReplaceAll(b.Bytes(), []byte("##["), []byte("##&#91;")))
	return err
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	TimeText string       `xml:"time,attr"`
	Time     int64        `xml:"-"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	TimeText   string           `xml:"time,attr"`
	Time       int64            `xml:"-"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Properties *junitProperties `xml:"properties"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string           `xml:"name,attr"`
	Classname  string           `xml:"classname,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties"`
	Skipped    *junitSkipped    `xml:"skipped"`
	Failures   []junitFailure   `xml:"failure"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// seconds renders milliseconds as JUnit's time attribute.
func seconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64) }

// stamp is when the sweep started, as JUnit's timestamp attribute (no zone), or "".
func stamp(r *tally.Results) string {
	if r.Started.IsZero() {
		return ""
	}
	return r.Started.UTC().Format("2006-01-02T15:04:05")
}
