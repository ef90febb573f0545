package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
)

// drift is a schema-drift under way in the session: announced to the client when the target call
// came, then published in every tools/list, the call's answer held for the client to list again.
type drift struct {
	tool, from, to string
	wait           time.Duration
	// notified is closed once the notification went to the client, relisted once a tools/list
	// with the new schema did.
	notified, relisted     chan struct{}
	notifyOnce, relistOnce sync.Once
	announced              bool // the notification is on its way (under Proxy.mu)
	start                  time.Time
}

// relistSettle is how long an answer held over HTTP waits after the client got the new list.
const relistSettle = 100 * time.Millisecond

// listChanged is the notification the proxy sends in the server's name.
var listChanged = []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n")

// startDrift arms a drift fault for the target call c as it comes, once a session; the schema
// is the one the fault picks from, and the call's seeded stream picks the field, as in Apply.
func (p *Proxy) startDrift(c *call) {
	df, ok := p.cfg.Fault.(fault.Drifter)
	if !ok || !c.fires {
		return
	}
	p.mu.Lock()
	armed := p.drift != nil
	p.mu.Unlock()
	if armed {
		return
	}
	schema, _ := p.faultSchema(context.Background(), c.tool)
	if schemaTooLarge(schema) != "" {
		schema = nil // the drift renames no field it cannot read in bounded work
	}
	from, to := df.Rename(schema, rand.New(rand.NewPCG(p.cfg.Seed, uint64(c.n))))
	d := &drift{tool: c.tool, from: from, to: to, wait: df.Grace(), notified: make(chan struct{}), relisted: make(chan struct{})}
	p.mu.Lock()
	if p.drift == nil {
		p.drift = d
	}
	p.mu.Unlock()
}

// dueNotice returns the notification that announces the drift and its record, once, or nil.
func (p *Proxy) dueNotice() ([]byte, *transcript.Record, *drift) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.drift
	if d == nil || d.announced {
		return nil, nil, nil
	}
	d.announced = true
	rec := &transcript.Record{Time: time.Now(), Dir: transcript.ServerToClient, Wire: listChanged,
		Note:       "made up by the proxy (" + p.cfg.FaultName + "): the server never sent it; tools/list answers from now on rename " + d.from + " to " + d.to + " in the outputSchema of " + d.tool,
		Introduced: []fault.Introduced{{Path: "method", Value: "notifications/tools/list_changed"}}}
	if d.from == "" {
		rec.Note = "made up by the proxy (" + p.cfg.FaultName + "): the server never sent it; the outputSchema of " + d.tool + " requires no field to rename, so tools/list answers stay as they are"
	}
	return listChanged, rec, d
}

// announced marks the notification sent: the hold of the call's answer starts.
func (d *drift) announce() {
	d.notifyOnce.Do(func() {
		d.start = time.Now()
		close(d.notified)
	})
}

// activeDrift is the drift the tools/list answers publish, once announced; nil before.
func (p *Proxy) activeDrift() *drift {
	p.mu.Lock()
	d := p.drift
	p.mu.Unlock()
	if d == nil {
		return nil
	}
	select {
	case <-d.notified:
		return d
	default:
		return nil
	}
}

// driftTool renames the drift's field in the outputSchema the tool t is listed with (in
// properties and required), once the drift was announced; it says whether t changed.
func (p *Proxy) driftTool(d *drift, name string, t map[string]json.RawMessage) bool {
	if d == nil || d.from == "" || name != d.tool {
		return false
	}
	var s map[string]any
	if raw, ok := t["outputSchema"]; !ok || json.Unmarshal(raw, &s) != nil || s == nil {
		return false // the hidden schema mode, or a schema that is not an object: nothing to drift
	}
	changed := false
	if props, ok := s["properties"].(map[string]any); ok {
		if v, ok := props[d.from]; ok {
			np := make(map[string]any, len(props))
			for k, pv := range props {
				if k != d.from {
					np[k] = pv
				}
			}
			np[d.to] = v
			s["properties"], changed = np, true
		}
	}
	if req, ok := s["required"].([]any); ok {
		if i := slices.Index(req, any(d.from)); i >= 0 {
			nr := slices.Clone(req)
			nr[i] = d.to
			s["required"], changed = nr, true
		}
	}
	if !changed {
		return false
	}
	b, err := marshal(s)
	if err != nil {
		return false
	}
	t["outputSchema"] = json.RawMessage(b)
	return true
}

// relistDone marks a tools/list with the drifted schema delivered: the held answer may go.
func (d *drift) relistDone() {
	d.relistOnce.Do(func() { close(d.relisted) })
}

// sent is what follows a frame's delivery to the client: a drifted tools/list ends the hold.
func (p *Proxy) sent(rec *answered) {
	if rec.relist != nil {
		rec.relist.relistDone()
	}
}

// holdAnswer holds the call's answer until the client listed the tools again after the
// notification, or the drift's grace ran out, and notes which.
func (p *Proxy) holdAnswer(ctx context.Context, rec *answered) {
	d := rec.hold
	if d == nil {
		return
	}
	select {
	case <-d.notified:
	case <-time.After(d.wait):
		rec.Note = strings.TrimPrefix(rec.Note+"; the notification had not gone to the client when the answer came: sent without a wait", "; ")
		return
	case <-ctx.Done():
		return
	}
	t := time.NewTimer(time.Until(d.start.Add(d.wait)))
	defer t.Stop()
	note := ""
	select {
	case <-d.relisted:
		if rec.HTTP != nil {
			// Over HTTP the new list and the answer travel apart: the client gets a moment to
			// take the list in before the answer overtakes it.
			settle := time.NewTimer(relistSettle)
			select {
			case <-settle.C:
			case <-ctx.Done():
				settle.Stop()
				return
			}
		}
		note = fmt.Sprintf("held %s after the notification, until the client listed the tools again", time.Since(d.start).Round(time.Millisecond))
	case <-t.C:
		note = fmt.Sprintf("held %s after the notification: the client did not list the tools again", d.wait)
	case <-ctx.Done():
		return
	}
	if rec.Note != "" {
		note = rec.Note + "; " + note
	}
	rec.Note, rec.Time = note, time.Now()
}
