package grade

import (
	"slices"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// cutShort says how the run's transcript was cut short, or "" when it is whole. A transcript is whole
// when it ends with the proxy's own last record (the server's exit, its failure to start, the
// end of an upstream session); without one, the runner appended "no-server-exit" with how the
// run ended (transcript.EndWithout): the proxy was killed before it wrote the end, and with it
// whatever it had not flushed yet (records wait up to transcript.FlushEvery in its buffer, far
// longer on a starved machine). Only the runner writes that event: nothing on the wire can.
// otherCut names another session of the run that was cut short (see Input.OtherCut), if one was.
func cutShort(entries []transcript.Entry, otherCut string) string {
	for i := range entries {
		if e := &entries[i]; e.Dir == transcript.Event && e.Event == "no-server-exit" {
			return "it was cut short (" + e.Note + ")"
		}
	}
	if otherCut != "" {
		return "the run's other session " + otherCut + ", cut short, may have held the call"
	}
	return ""
}

// judged are the outcomes that say what a client did with the answer on the wire, or with its
// absence: those a cut transcript without the answer cannot support.
var judged = []record.Outcome{record.Passed, record.Altered, record.Threw, record.RPCError, record.Rejected}

// unobserved makes g, the grade of a run whose transcript was cut short before it held the
// answer to the call, toolscore's failure (record.Unobserved) rather than the client's: the
// call and its answer may have been on the wire all the same, lost with the proxy's unwritten
// records, so "never called" or "the server never answered" is not known, and neither is what
// the client did with what it got. The grade it would have had stays in the evidence. Outcomes
// that do not rest on the answer (hung, crashed, no-call, out of memory...) are kept: the runner
// runs those again alone already.
func unobserved(g Grade, entries []transcript.Entry, otherCut string) Grade {
	why := cutShort(entries, otherCut)
	if why == "" || !slices.Contains(judged, g.Outcome) {
		return g
	}
	if _, answer := transcript.TargetAnswer(entries); answer != nil {
		return g
	}
	was := string(g.Outcome)
	if g.Evidence != "" {
		was += ": " + g.Evidence
	}
	g.Outcome = record.Unobserved
	g.Evidence = clip("toolscore did not see the run whole: its transcript holds no answer to the call, and "+why+
		", so the call and its answer may have been on the wire unrecorded; on what the transcript holds the run would be "+was, maxEvidence)
	return g
}
