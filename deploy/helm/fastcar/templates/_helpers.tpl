{{/* Names: the release's, cut to the 63 characters a Kubernetes name may have. */}}
{{- define "fastcar.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "fastcar.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "fastcar.proxyName" -}}
{{- printf "%s-proxy" (include "fastcar.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "fastcar.redisName" -}}
{{- printf "%s-redis" (include "fastcar.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "fastcar.metricsName" -}}
{{- printf "%s-metrics" (include "fastcar.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "fastcar.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: fastcar
{{- end }}

{{/* Pods of one part of the release (api, proxy, redis): what Services, budgets and the autoscaler select. */}}
{{- define "fastcar.selector" -}}
app.kubernetes.io/name: {{ include "fastcar.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "fastcar.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/*
A setting's value as its variable's text. Helm reads numbers in values files as floats:
printed as they are, 268435456 would reach the variable as 2.68435456e+08.
*/}}
{{- define "fastcar.settingText" -}}
{{- if kindIs "float64" . }}{{ . | int64 }}{{ else }}{{ . }}{{ end }}
{{- end }}

{{/* The settings set, plus the chart's own, as container variables; Secrets' after them. */}}
{{- define "fastcar.env" -}}
{{- range $name, $value := .settings }}
{{- if not (kindIs "invalid" $value) }}
- name: {{ $name }}
  value: {{ include "fastcar.settingText" $value | quote }}
{{- end }}
{{- end }}
{{- range $name, $ref := .secrets }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $ref.name }}
      key: {{ $ref.key }}
{{- end }}
{{- end }}

{{/* A set setting's text, or the fallback given. */}}
{{- define "fastcar.setting" -}}
{{- $value := index .settings .name }}
{{- if kindIs "invalid" $value }}{{ .fallback }}{{ else }}{{ include "fastcar.settingText" $value }}{{ end }}
{{- end }}

{{- define "fastcar.port" -}}
{{- include "fastcar.setting" (dict "settings" .Values.fastcar.settings "name" "FASTCAR_PORT" "fallback" "8080") }}
{{- end }}

{{- define "fastcar.proxyPort" -}}
{{- include "fastcar.setting" (dict "settings" .Values.proxy.settings "name" "PROXY_PORT" "fallback" "9955") }}
{{- end }}

{{/*
The metrics port when the kubelet and Prometheus can reach it (a port of its own, bound
to every address), else empty.
*/}}
{{- define "fastcar.metricsPort" -}}
{{- $port := include "fastcar.setting" (dict "settings" .Values.fastcar.settings "name" "FASTCAR_METRICS_PORT" "fallback" "9100") }}
{{- if eq $port "false" }}{{ $port = "off" }}{{ end }}
{{- $host := include "fastcar.setting" (dict "settings" .Values.fastcar.settings "name" "FASTCAR_METRICS_HOST" "fallback" "127.0.0.1") }}
{{- if and (ne $port "off") (has $host (list "0.0.0.0" "::")) }}{{ $port }}{{ end }}
{{- end }}

{{/* fastcar's settings with what the chart wires: the proxy's Service as the node, the chart's Redis. */}}
{{- define "fastcar.settings" -}}
{{- $settings := deepCopy .Values.fastcar.settings }}
{{- $secrets := .Values.fastcar.secretEnv }}
{{- /* YAML 1.1, which helm reads values with, takes a bare `off` for false. */}}
{{- if eq (toString (index $settings "FASTCAR_METRICS_PORT")) "false" }}
{{- $_ := set $settings "FASTCAR_METRICS_PORT" "off" }}
{{- end }}
{{- $host := include "fastcar.setting" (dict "settings" $settings "name" "FASTCAR_HOST" "fallback" "127.0.0.1") }}
{{- if not (has $host (list "0.0.0.0" "::")) }}
{{- fail (printf "fastcar.settings.FASTCAR_HOST is %s: in a pod fastcar must listen on 0.0.0.0 (or ::) to be reached" $host) }}
{{- end }}
{{- if eq (include "fastcar.port" .) "0" }}
{{- fail "fastcar.settings.FASTCAR_PORT is 0 (any free port): name the port, the Service and the probes need it" }}
{{- end }}
{{- $nodeNamed := or (not (kindIs "invalid" (index $settings "FASTCAR_NODE_URL"))) (not (kindIs "invalid" (index $settings "SAS_SUBSTRATE_URL"))) (hasKey $secrets "FASTCAR_NODE_URL") (hasKey $secrets "SAS_SUBSTRATE_URL") }}
{{- if .Values.proxy.enabled }}
{{- if $nodeNamed }}
{{- fail "proxy.enabled puts the proxy in front of the nodes and fastcar behind it: name the nodes in proxy.settings.PROXY_UPSTREAMS and leave FASTCAR_NODE_URL unset" }}
{{- end }}
{{- $_ := set $settings "FASTCAR_NODE_URL" (printf "ws://%s:%s" (include "fastcar.proxyName" .) (include "fastcar.proxyPort" .)) }}
{{- end }}
{{- $redisNamed := or (not (kindIs "invalid" (index $settings "REDIS_URL"))) (not (kindIs "invalid" (index $settings "FASTCAR_REDIS_URL"))) (hasKey $secrets "REDIS_URL") (hasKey $secrets "FASTCAR_REDIS_URL") }}
{{- if .Values.redis.enabled }}
{{- if $redisNamed }}
{{- fail "redis.enabled runs a Redis in the chart: leave REDIS_URL unset (or turn redis.enabled off to use yours)" }}
{{- end }}
{{- $_ := set $settings "REDIS_URL" (printf "redis://%s:%v" (include "fastcar.redisName" .) .Values.redis.port) }}
{{- end }}
{{- toYaml $settings }}
{{- end }}
