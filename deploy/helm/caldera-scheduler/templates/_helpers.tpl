{{/*
Values of Volcano's chart that this chart accepts by name (so that a Volcano values file's
scheduler lines are taken as they are) but cannot honour: each is refused, with the reason,
when it asks for more than its default. values.schema.json has already refused unknown
names and wrong types by then.
*/}}
{{- define "caldera.checkValues" -}}
{{- $c := .Values.custom -}}
{{- if $c.scheduler_pprof_enable -}}
{{- fail "custom.scheduler_pprof_enable: Caldera has no pprof endpoint (it is not a Go program); leave it false" -}}
{{- end -}}
{{- if $c.scheduler_feature_gates -}}
{{- fail (printf "custom.scheduler_feature_gates=%q: Caldera has no feature gates (its config turns plugins and actions on and off); leave it unset" $c.scheduler_feature_gates) -}}
{{- end -}}
{{- if $c.scheduler_sharding_mode -}}
{{- fail (printf "custom.scheduler_sharding_mode=%q: Caldera does not take part in Volcano's scheduler sharding (NodeShards); leave it unset" $c.scheduler_sharding_mode) -}}
{{- end -}}
{{- if $c.go_memlimit_enable -}}
{{- fail "custom.go_memlimit_enable: Caldera is not a Go program, GOMEMLIMIT means nothing to it; bound its memory with custom.scheduler_resources.limits and leave this false" -}}
{{- end -}}
{{- /* Two replicas without leader election would both schedule the same pods. */ -}}
{{- if and (gt (int $c.scheduler_replicas) 1) (not $c.leader_elect_enable) -}}
{{- fail (printf "custom.scheduler_replicas=%d needs custom.leader_elect_enable=true: without leader election every replica schedules" (int $c.scheduler_replicas)) -}}
{{- end -}}
{{- if and (not $c.scheduler_config_override) (not (.Files.Get .Values.basic.scheduler_config_file)) -}}
{{- fail (printf "basic.scheduler_config_file=%q: no such file in the chart (and no custom.scheduler_config_override)" .Values.basic.scheduler_config_file) -}}
{{- end -}}
{{- end -}}

{{/* The image, by Volcano's rule: registry/name:tag, the scheduler's tag over the common one.
An empty registry leaves the name as it is. */}}
{{- define "caldera.image" -}}
{{- $b := .Values.basic -}}
{{- $tag := $b.scheduler_image_tag_version | default $b.image_tag_version -}}
{{- if $b.image_registry -}}
{{ $b.image_registry }}/{{ $b.scheduler_image_name }}:{{ $tag }}
{{- else -}}
{{ $b.scheduler_image_name }}:{{ $tag }}
{{- end -}}
{{- end -}}

{{/* The pods' selector: Volcano's label (dashboards and monitors select on it) and the
release, so that the Deployment's selector never overlaps volcano-scheduler's. */}}
{{- define "caldera.selectorLabels" -}}
app: volcano-scheduler
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
