{{/* The release's base name. */}}
{{- define "chartd.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "chartd.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: chartd
{{- end -}}

{{/* Labels that select one component's pods: (dict "root" . "component" "gateway"). */}}
{{- define "chartd.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* An image reference: (dict "root" . "image" .Values.images.chartd). */}}
{{- define "chartd.image" -}}
{{- $tag := .image.tag | default .root.Chart.AppVersion -}}
{{- if .image.digest -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "chartd.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "chartd.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "chartd.secretName" -}}
{{- default (include "chartd.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* Pod-level security: non-root, RuntimeDefault seccomp. */}}
{{- define "chartd.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Container-level security: read-only root, nothing escalates. */}}
{{- define "chartd.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Probes on chartd's /readyz and /healthz. */}}
{{- define "chartd.probes" -}}
startupProbe:
  httpGet: {path: /healthz, port: http}
  periodSeconds: 2
  failureThreshold: 30
  timeoutSeconds: 2
readinessProbe:
  httpGet: {path: /readyz, port: http}
  periodSeconds: 5
  failureThreshold: 3
  timeoutSeconds: 2
livenessProbe:
  httpGet: {path: /healthz, port: http}
  periodSeconds: 10
  failureThreshold: 3
  timeoutSeconds: 2
{{- end -}}

{{/* Topology spread over zones and nodes: (dict "root" . "component" "gateway"). */}}
{{- define "chartd.topologySpread" -}}
- maxSkew: 1
  topologyKey: topology.kubernetes.io/zone
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "chartd.selectorLabels" . | nindent 6 }}
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "chartd.selectorLabels" . | nindent 6 }}
{{- end -}}

{{/* What each service needs and calls (calls and degradedWithout); keep in line with services() in services/chartd/modules.go. */}}
{{- define "chartd.topology" -}}
needs:
  gateway: [postgres, redis]
  chart: [postgres]
  data: []
  brand: [postgres, redis]
  render: [postgres, redis, s3]
calls:
  gateway: [chart, data, brand, render]
  chart: [brand, render]
  data: [chart]
  brand: []
  render: [chart, brand]
{{- end -}}

{{/* The flags every chartd process gets. */}}
{{- define "chartd.commonArgs" -}}
- -addr=0.0.0.0:8080
- -public-url={{ .Values.publicURL }}
- -log-level={{ .Values.logLevel }}
- -shutdown.delay={{ .Values.shutdownDelaySeconds }}s
- -shutdown-timeout={{ .Values.shutdownTimeoutSeconds }}s
{{- if .Values.metrics.enabled }}
- -metrics-addr=0.0.0.0:9090
{{- end }}
{{- end -}}

{{/* The flags of one service run apart: (dict "root" . "component" "gateway"). */}}
{{- define "chartd.serviceArgs" -}}
{{- $root := .root -}}
{{- $topo := include "chartd.topology" . | fromYaml -}}
{{- $fullname := include "chartd.fullname" $root -}}
- -target={{ .component }}
{{ include "chartd.commonArgs" $root }}
- -data-dir=/tmp/chartd
{{- range (get $topo.calls .component) }}
- -{{ . }}-url=http://{{ $fullname }}-{{ . }}
{{- end }}
{{- if has "s3" (get $topo.needs .component) }}
- -s3-endpoint={{ required "s3.endpoint is required in distributed mode" $root.Values.s3.endpoint }}
- -s3-bucket={{ $root.Values.s3.bucket }}
{{- with $root.Values.s3.region }}
- -s3-region={{ . }}
{{- end }}
- -s3-secure={{ $root.Values.s3.secure }}
- -s3-expire-days={{ $root.Values.s3.expireDays }}
{{- end }}
{{- if and $root.Values.trustedProxies (has .component (list "gateway" "render")) }}
- -{{ .component }}.trusted-proxies={{ join "," $root.Values.trustedProxies }}
{{- end }}
{{- if and (eq .component "render") $root.Values.images.render.chromiumVersion }}
- -render.chromium-version={{ $root.Values.images.render.chromiumVersion }}
{{- end }}
{{- if and (eq .component "gateway") $root.Values.mail.from }}
- {{ printf "-gateway.mail.from=%s" $root.Values.mail.from | quote }}
{{- end }}
{{- if eq .component "brand" }}
- -brand.fetch-timeout={{ $root.Values.brand.fetchTimeout }}
{{- with $root.Values.brand.egressProxy }}
- -brand.egress-proxy={{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The environment of one service run apart: secrets by reference, OTEL. */}}
{{- define "chartd.serviceEnv" -}}
{{- $root := .root -}}
{{- $topo := include "chartd.topology" . | fromYaml -}}
{{- $needs := get $topo.needs .component -}}
{{- $secret := include "chartd.secretName" $root -}}
- name: CHARTD_INTERNAL_TOKEN
  valueFrom: {secretKeyRef: {name: {{ $secret }}, key: internal-token}}
{{- if has "postgres" $needs }}
- name: CHARTD_POSTGRES_URL
  valueFrom: {secretKeyRef: {name: {{ $secret }}, key: postgres-url}}
{{- end }}
{{- if has "redis" $needs }}
- name: CHARTD_REDIS_URL
  valueFrom: {secretKeyRef: {name: {{ $secret }}, key: redis-url}}
{{- end }}
{{- if has "s3" $needs }}
- name: CHARTD_S3_ACCESS_KEY
  valueFrom: {secretKeyRef: {name: {{ $secret }}, key: s3-access-key}}
- name: CHARTD_S3_SECRET_KEY
  valueFrom: {secretKeyRef: {name: {{ $secret }}, key: s3-secret-key}}
{{- end }}
{{- if eq .component "gateway" }}
- name: CHARTD_GATEWAY_MAIL_SMTP_URL
  valueFrom: {secretKeyRef: {name: {{ $secret }}, key: smtp-url, optional: true}}
{{- end }}
{{ include "chartd.otelEnv" (dict "root" $root "component" .component) }}
{{- end -}}

{{/* OTEL_* variables: (dict "root" . "component" "gateway"). */}}
{{- define "chartd.otelEnv" -}}
- name: OTEL_SERVICE_NAME
  value: chartd-{{ .component }}
{{- with .root.Values.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- end -}}

{{/* The /tmp emptyDir of a pod, bounded by its ephemeral-storage limit: (dict "resources" $v.resources). */}}
{{- define "chartd.tmpVolume" -}}
- name: tmp
  emptyDir:
    {{- with (get (.resources.limits | default dict) "ephemeral-storage") }}
    sizeLimit: {{ . }}
    {{- else }} {}
    {{- end }}
{{- end -}}

{{/* Refuse settings that cannot work. */}}
{{- define "chartd.validate" -}}
{{- $stop := add (int .Values.shutdownDelaySeconds) (int .Values.shutdownTimeoutSeconds) -}}
{{- if le (int .Values.terminationGracePeriodSeconds) (int $stop) -}}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be larger than shutdownDelaySeconds + shutdownTimeoutSeconds (%d + %d = %d): after SIGTERM chartd serves for the delay, then drains for the timeout, and the kubelet kills it at the grace period" (int .Values.terminationGracePeriodSeconds) (int .Values.shutdownDelaySeconds) (int .Values.shutdownTimeoutSeconds) (int $stop)) -}}
{{- end -}}
{{- if and (eq .Values.deploymentMode "distributed") (not .Values.secrets.existingSecret) -}}
{{- if not .Values.secrets.postgresURL -}}{{- fail "secrets.postgresURL (or secrets.existingSecret) is required in distributed mode" -}}{{- end -}}
{{- if not .Values.secrets.redisURL -}}{{- fail "secrets.redisURL (or secrets.existingSecret) is required in distributed mode" -}}{{- end -}}
{{- end -}}
{{- if gt (int .Values.render.minReplicas) (int .Values.render.maxReplicas) -}}
{{- fail (printf "render.minReplicas (%d) must not exceed render.maxReplicas (%d)" (int .Values.render.minReplicas) (int .Values.render.maxReplicas)) -}}
{{- end -}}
{{- range $c := list "gateway" "chart" "data" }}
{{- $a := (get $.Values $c).autoscaling -}}
{{- if and $a.enabled (gt (int $a.minReplicas) (int $a.maxReplicas)) -}}
{{- fail (printf "%s.autoscaling.minReplicas (%d) must not exceed %s.autoscaling.maxReplicas (%d)" $c (int $a.minReplicas) $c (int $a.maxReplicas)) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.httpRoute.enabled (not .Values.httpRoute.parentRefs) -}}
{{- fail "httpRoute.parentRefs names the Gateway to attach to; it is required when httpRoute.enabled" -}}
{{- end -}}
{{- if and .Values.ingress.tls.enabled (not (hasPrefix "https://" .Values.publicURL)) -}}
{{- fail "ingress.tls.enabled needs publicURL to start with https://" -}}
{{- end -}}
{{- end -}}
