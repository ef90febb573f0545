package docker

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"

	"github.com/toolscore/toolscore/internal/backend"
)

// Sweep removes containers and volumes of ours that outlived their sweep: those past their
// deadline, and those whose owning process on this host is gone. With all, it removes every one
// of ours (toolscore clean). It returns how many it removed.
func (d *Backend) Sweep(ctx context.Context, all bool) (int, error) {
	cs, err := d.api.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", LabelMarker+"=1"))})
	if err != nil {
		return 0, fmt.Errorf("listing containers: %w", err)
	}
	n := 0
	for _, c := range cs {
		if all || d.leftover(c.Labels) {
			if err := d.api.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err == nil {
				n++
			}
		}
	}
	vs, err := d.api.VolumeList(ctx, volume.ListOptions{Filters: filters.NewArgs(filters.Arg("label", LabelMarker+"=1"))})
	if err != nil {
		return n, fmt.Errorf("listing volumes: %w", err)
	}
	for _, v := range vs.Volumes {
		if all || d.leftover(v.Labels) {
			if err := d.api.VolumeRemove(ctx, v.Name, true); err == nil {
				n++
			}
		}
	}
	return n, nil
}

// leftover says whether something labelled by a sweep belongs to a sweep that is over: past its
// deadline, or made by an owner this process can see is gone. An owner it cannot judge (of
// another machine, boot or PID namespace, or an older label that does not say) may still be
// running, so its things are left until their deadline.
func (d *Backend) leftover(labels map[string]string) bool {
	if labels[LabelSession] == d.session {
		return false
	}
	if dl, err := strconv.ParseInt(labels[LabelDeadline], 10, 64); err == nil && time.Now().Unix() > dl {
		return true
	}
	o, err := backend.ParseOwner(labels[LabelOwner])
	if err != nil {
		return false
	}
	gone, known := o.Gone()
	return known && gone
}

// RemoveMine removes the containers of this sweep still there (none, when every run cleaned up
// after itself) and says how many there were.
func (d *Backend) RemoveMine(ctx context.Context) (int, error) {
	cs, err := d.api.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", LabelSession+"="+d.session))})
	if err != nil {
		return 0, err
	}
	for _, c := range cs {
		_ = d.api.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	}
	return len(cs), nil
}
