package grade

import (
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// Input is everything one run is graded on: how its adapter ended, its transcript as read
// back, and for a run played against a recording, that recording.
type Input struct {
	Run Run
	// Transcript is the run's transcript as transcript.ReadForGrading read it; Unread, when
	// set, says why it could not be read whole.
	Transcript []transcript.Entry
	Unread     error
	// Calls is how the client sent the target call, counted over the whole transcript
	// (transcript.ReadForGradingCalls); the grader adds the tool's side effects.
	Calls record.Calls
	// SideEffects is the manifest's word on whether the tool has side effects; nil: the tool's
	// annotations in the tools/list answer decide.
	SideEffects *bool
	// OtherCut names another session's transcript of the run (a client that started the server
	// more than once) that was cut short, when one was: it may have held the call.
	OtherCut string
	// Agent says the client is an agent, whose final answer is graded against Truth.
	Agent bool
	Truth []string
	// Replayed says the run was played against a recording (toolscore run --replay);
	// Recording is that recording's transcript as read for grading.
	Replayed  bool
	Recording []transcript.Entry
}

// Grade grades the run whole: [Replayed] for a replayed run, then [OffPath], [Protocol], then
// [Agent] or [SDK], then [unobserved] for a transcript cut short before the call's answer, and
// [Unread] when the transcript could not be read whole. A replayed run that kept to
// its recording is graded with the recording's negotiation and the values its answer's fault
// introduced: the clean proxy of the replay knows neither the cell's protocol cap nor the
// fault that put those values on the wire.
func (in Input) Grade() Grade {
	g := unobserved(in.grade(), in.Transcript, in.OtherCut)
	if in.Unread != nil {
		g = Unread(g, in.Unread)
	}
	g.Calls = calls(in.Calls, in.Transcript, in.SideEffects)
	if said := g.Calls.Said(); said != "" {
		// The calls' line ends the evidence whole: what came before it is cut to make room.
		g.Evidence = withNote(clip(g.Evidence, maxEvidence-len(said)-2), said)
	}
	return g
}

func (in Input) grade() Grade {
	n := transcript.Negotiated(in.Transcript)
	var recorded *transcript.Entry
	if in.Replayed {
		if g, ok := Replayed(in.Transcript); ok {
			return g
		}
		was := transcript.Negotiated(in.Recording)
		n.Protocol = was.Protocol
		if n.Unavailable == "" {
			n.Unavailable = was.Unavailable
		}
		if _, answer := transcript.TargetAnswer(in.Transcript); answer != nil {
			_, recorded = transcript.TargetAnswer(in.Recording)
		}
	}
	if g, ok := OffPath(in.Transcript); ok {
		return g
	}
	if g, ok := Protocol(n, in.Transcript); ok && (in.Unread == nil || g.Outcome != record.HandshakeFailed) {
		// A handshake failure rests on what the client did not send: a transcript not read
		// whole may hold it.
		return g
	}
	if in.Agent {
		return agent(in.Run, in.Transcript, in.Truth, recorded)
	}
	return sdk(in.Run, in.Transcript, recorded)
}
