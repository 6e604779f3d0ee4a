package main

// Volcano's objects as a user submits them, and what the controllers make of them.

import (
	"fmt"
	"strings"
	"time"
)

// RunFor is the pod annotation KWOK's pod-complete stage (../stages.yaml) reads: the pod
// completes (Succeeded) this long after it is Running.
const RunFor = "e2e.caldera.test/run-for"

type Task struct {
	Name     string
	Replicas int
	Min      int            // the task's minAvailable
	CPU      string         // per pod
	RunFor   string         // "" = runs until deleted
	Spec     map[string]any // more PodSpec fields (tolerations, nodeSelector)
}

type JobSpec struct {
	Name, Queue, PriorityClass string
	MinAvailable               int
	Tasks                      []Task
	Policies                   []map[string]any // spec.policies
}

// vcJob builds a batch.volcano.sh/v1alpha1 Job. Every field Volcano's mutating webhook
// would default is given (queue, schedulerName, maxRetry, minAvailable, task names, task
// minAvailable and maxRetry): the rig runs no webhook, and the job controller does not
// default them itself.
func vcJob(ns string, j JobSpec) map[string]any {
	var tasks []any
	for _, t := range j.Tasks {
		ann := map[string]any{}
		if t.RunFor != "" {
			ann[RunFor] = t.RunFor
		}
		podSpec := map[string]any{
			"restartPolicy": "Never",
			"containers": []any{map[string]any{
				"name": "main", "image": "registry.invalid/sleep",
				"resources": map[string]any{"requests": map[string]any{"cpu": t.CPU, "memory": "100Mi"}},
			}},
		}
		for k, v := range t.Spec {
			podSpec[k] = v
		}
		tasks = append(tasks, map[string]any{
			"name": t.Name, "replicas": t.Replicas, "minAvailable": t.Min, "maxRetry": 3,
			"template": map[string]any{
				"metadata": map[string]any{"annotations": ann},
				"spec":     podSpec,
			},
		})
	}
	spec := map[string]any{
		"schedulerName": "volcano", "queue": j.Queue, "minAvailable": j.MinAvailable,
		"maxRetry": 3, "tasks": tasks,
	}
	if j.PriorityClass != "" {
		spec["priorityClassName"] = j.PriorityClass
	}
	if j.Policies != nil {
		spec["policies"] = j.Policies
	}
	return map[string]any{
		"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
		"metadata": map[string]any{"name": j.Name, "namespace": ns},
		"spec":     spec,
	}
}

func (r *Rig) SubmitJob(ns string, j JobSpec) error {
	return r.Create(fmt.Sprintf("/apis/batch.volcano.sh/v1alpha1/namespaces/%s/jobs", ns), vcJob(ns, j))
}

type VcJobStatus struct {
	Phase      string
	Pending    int
	Running    int
	Succeeded  int
	Failed     int
	RetryCount int
	Version    int
	MinAvail   int
}

func (s VcJobStatus) String() string {
	return fmt.Sprintf("phase %s (pending %d running %d succeeded %d failed %d, retryCount %d, version %d)",
		s.Phase, s.Pending, s.Running, s.Succeeded, s.Failed, s.RetryCount, s.Version)
}

func (r *Rig) Job(ns, name string) (VcJobStatus, error) {
	var j struct {
		Status struct {
			State struct {
				Phase string `json:"phase"`
			} `json:"state"`
			MinAvailable int `json:"minAvailable"`
			Pending      int `json:"pending"`
			Running      int `json:"running"`
			Succeeded    int `json:"succeeded"`
			Failed       int `json:"failed"`
			RetryCount   int `json:"retryCount"`
			Version      int `json:"version"`
		} `json:"status"`
	}
	err := r.Get(fmt.Sprintf("/apis/batch.volcano.sh/v1alpha1/namespaces/%s/jobs/%s", ns, name), &j)
	s := j.Status
	return VcJobStatus{s.State.Phase, s.Pending, s.Running, s.Succeeded, s.Failed, s.RetryCount, s.Version, s.MinAvailable}, err
}

// WaitJobPhase waits until the Job's phase is one of phases.
func (r *Rig) WaitJobPhase(ns, name string, d time.Duration, phases ...string) (VcJobStatus, error) {
	var st VcJobStatus
	err := waitFor(d, fmt.Sprintf("job %s/%s phase %s", ns, name, strings.Join(phases, " or ")), func() (bool, string) {
		s, err := r.Job(ns, name)
		if err != nil {
			return false, err.Error()
		}
		st = s
		for _, p := range phases {
			if s.Phase == p {
				return true, ""
			}
		}
		return false, s.String()
	})
	return st, err
}

type PodGroup struct {
	Name      string
	Owner     string // the controller owner's kind/name
	Queue     string
	MinMember int
	Phase     string
	Running   int
	Succeeded int
	Conds     []string // `Type=Status Reason: "Message"`
}

// PodGroups lists ns's PodGroups.
func (r *Rig) PodGroups(ns string) ([]PodGroup, error) {
	var l struct {
		Items []struct {
			Metadata struct {
				Name            string
				OwnerReferences []struct {
					Kind, Name string
					Controller *bool
				}
			}
			Spec struct {
				Queue     string
				MinMember int
			}
			Status struct {
				Phase      string
				Running    int
				Succeeded  int
				Conditions []struct{ Type, Status, Reason, Message string }
			}
		}
	}
	if err := r.Get(fmt.Sprintf("/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups", ns), &l); err != nil {
		return nil, err
	}
	var out []PodGroup
	for _, it := range l.Items {
		pg := PodGroup{Name: it.Metadata.Name, Queue: it.Spec.Queue, MinMember: it.Spec.MinMember,
			Phase: it.Status.Phase, Running: it.Status.Running, Succeeded: it.Status.Succeeded}
		for _, o := range it.Metadata.OwnerReferences {
			if o.Controller != nil && *o.Controller {
				pg.Owner = o.Kind + "/" + o.Name
			}
		}
		for _, c := range it.Status.Conditions {
			pg.Conds = append(pg.Conds, fmt.Sprintf("%s=%s %s: %q", c.Type, c.Status, c.Reason, c.Message))
		}
		out = append(out, pg)
	}
	return out, nil
}

// JobPodGroup: the PodGroup the job controller made for Job name (owned by it).
func (r *Rig) JobPodGroup(ns, name string) (PodGroup, error) {
	pgs, err := r.PodGroups(ns)
	if err != nil {
		return PodGroup{}, err
	}
	for _, pg := range pgs {
		if pg.Owner == "Job/"+name {
			return pg, nil
		}
	}
	return PodGroup{}, fmt.Errorf("no PodGroup owned by Job %s/%s (have %v)", ns, name, pgs)
}

func (r *Rig) WaitPodGroupPhase(ns, job string, d time.Duration, phase string) (PodGroup, error) {
	var pg PodGroup
	err := waitFor(d, fmt.Sprintf("PodGroup of job %s/%s phase %s", ns, job, phase), func() (bool, string) {
		g, err := r.JobPodGroup(ns, job)
		if err != nil {
			return false, err.Error()
		}
		pg = g
		return g.Phase == phase, fmt.Sprintf("phase %s %v", g.Phase, g.Conds)
	})
	return pg, err
}
