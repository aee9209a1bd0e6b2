{{/* Chart name, possibly overridden. */}}
{{- define "ig.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name; the component suffixes (-gateway, -controlplane, ...) must fit in 63. */}}
{{- define "ig.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 48 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 48 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 48 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ig.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object; pass (dict "ctx" $ "component" "gateway"). */}}
{{- define "ig.labels" -}}
helm.sh/chart: {{ include "ig.chart" .ctx }}
{{ include "ig.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: inference-gateway
{{- with .ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "ig.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ig.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end -}}

{{- define "ig.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "ig.gatewayServiceAccount" -}}{{ include "ig.fullname" . }}-gateway{{- end -}}

{{- define "ig.controlPlaneServiceAccount" -}}
{{- default (printf "%s-controlplane" (include "ig.fullname" .)) .Values.controlPlane.serviceAccount.name -}}
{{- end -}}

{{- define "ig.operatorServiceAccount" -}}
{{- default (printf "%s-operator" (include "ig.fullname" .)) .Values.operator.serviceAccount.name -}}
{{- end -}}

{{- define "ig.leaseName" -}}
{{- default (printf "%s-operator" (include "ig.fullname" .)) .Values.operator.leaderElection.leaseName -}}
{{- end -}}

{{/* Secret names and keys: the user's existing Secret, or the one the chart creates. */}}
{{- define "ig.signingKeySecret" -}}
{{- default (printf "%s-token-signing" (include "ig.fullname" .)) .Values.tokenSigningKey.existingSecret -}}
{{- end -}}
{{- define "ig.signingKeyKey" -}}
{{- if .Values.tokenSigningKey.existingSecret }}{{ .Values.tokenSigningKey.existingSecretKey }}{{ else }}signing-key{{ end -}}
{{- end -}}
{{/* Older verify keys: in the user's Secret, in the chart's signing Secret, or beside a generated one. */}}
{{- define "ig.verifyKeysSecret" -}}
{{- if or .Values.tokenSigningKey.existingSecret .Values.tokenSigningKey.value -}}
{{- include "ig.signingKeySecret" . -}}
{{- else -}}
{{- printf "%s-token-verify" (include "ig.fullname" .) -}}
{{- end -}}
{{- end -}}
{{- define "ig.encryptionKeySecret" -}}
{{- default (printf "%s-encryption" (include "ig.fullname" .)) .Values.encryptionKey.existingSecret -}}
{{- end -}}
{{- define "ig.encryptionKeyKey" -}}
{{- if .Values.encryptionKey.existingSecret }}{{ .Values.encryptionKey.existingSecretKey }}{{ else }}encryption-key{{ end -}}
{{- end -}}
{{- define "ig.providerKeysSecret" -}}
{{- if .Values.providerKeys.existingSecret -}}
{{- .Values.providerKeys.existingSecret -}}
{{- else if .Values.providerKeys.values -}}
{{- printf "%s-provider-keys" (include "ig.fullname" .) -}}
{{- end -}}
{{- end -}}
{{- define "ig.redisSecret" -}}
{{- if .Values.redis.enabled -}}
{{- "" -}}
{{- else if .Values.redis.existingSecret -}}
{{- .Values.redis.existingSecret -}}
{{- else -}}
{{- printf "%s-redis-url" (include "ig.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
The Redis stores' settings (src/config/redis-settings.ts, README "Redis modes"): the bundled Redis;
or one external server (REDIS_URL, always through a Secret: it may hold a password), a Redis Cluster
(REDIS_CLUSTER_NODES) or Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_MASTER), with the URL for
credentials and TLS; passwords from their own Secrets; TLS and a private CA.
*/}}
{{- define "ig.env.redis" -}}
{{- $redis := .Values.redis -}}
{{- if $redis.enabled }}
- name: REDIS_URL
  value: {{ printf "redis://%s-redis:6379" (include "ig.fullname" .) | quote }}
{{- else }}
{{- if and (not $redis.url) (not $redis.existingSecret) (not $redis.clusterNodes) (not $redis.sentinel.nodes) }}
{{- fail "redis.enabled=false needs redis.url, redis.existingSecret, redis.clusterNodes or redis.sentinel.nodes (the config and runtime stores live in Redis)" }}
{{- end }}
{{- if and $redis.clusterNodes $redis.sentinel.nodes }}
{{- fail "redis.clusterNodes and redis.sentinel.nodes: a Redis Cluster or Sentinel, not both" }}
{{- end }}
{{- if or $redis.url $redis.existingSecret }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "ig.redisSecret" . }}
      key: {{ if $redis.existingSecret }}{{ $redis.existingSecretKey }}{{ else }}redis-url{{ end }}
{{- end }}
{{- if $redis.clusterNodes }}
- name: REDIS_CLUSTER_NODES
  value: {{ join "," $redis.clusterNodes | quote }}
{{- end }}
{{- if $redis.sentinel.nodes }}
- name: REDIS_SENTINELS
  value: {{ join "," $redis.sentinel.nodes | quote }}
- name: REDIS_SENTINEL_MASTER
  value: {{ $redis.sentinel.masterName | quote }}
{{- with $redis.sentinel.existingSecret }}
- name: REDIS_SENTINEL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $redis.sentinel.existingSecretKey }}
{{- end }}
{{- end }}
{{- with $redis.auth.existingSecret }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $redis.auth.existingSecretKey }}
{{- end }}
{{- with $redis.auth.username }}
- name: REDIS_USERNAME
  value: {{ . | quote }}
{{- end }}
{{- if or $redis.tls.enabled $redis.tls.caSecret }}
- name: REDIS_TLS
  value: "on"
{{- end }}
{{- if $redis.tls.caSecret }}
- name: REDIS_TLS_CA_FILE
  value: {{ include "ig.redisCaDir" . }}/ca.crt
{{- end }}
{{- end }}
{{- end -}}

{{- define "ig.redisCaDir" -}}/etc/inference-gateway/redis-ca{{- end -}}

{{/* The private CA's bundle for TLS to Redis (redis.tls.caSecret), when there is one. */}}
{{- define "ig.redisCaVolumeMount" -}}
{{- if and (not .Values.redis.enabled) .Values.redis.tls.caSecret }}
- name: redis-ca
  mountPath: {{ include "ig.redisCaDir" . }}
  readOnly: true
{{- end }}
{{- end -}}
{{- define "ig.redisCaVolume" -}}
{{- if and (not .Values.redis.enabled) .Values.redis.tls.caSecret }}
- name: redis-ca
  secret:
    secretName: {{ .Values.redis.tls.caSecret }}
    defaultMode: 292
    items:
      - key: {{ .Values.redis.tls.caSecretKey }}
        path: ca.crt
{{- end }}
{{- end -}}

{{- define "ig.env.common" -}}
- name: HOST
  value: "0.0.0.0"
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: STATE_DIR
  value: /tmp/gateway-state
{{- include "ig.env.redis" . }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{/*
The keys are files of a read-only volume, not environment variables (src/config/settings.ts reads
the *_FILE settings): they stay out of the process environment and of `kubectl describe pod`.
*/}}
{{- define "ig.keysDir" -}}/etc/inference-gateway/keys{{- end -}}

{{- define "ig.env.encryptionKey" -}}
- name: SERVICE_ENCRYPTION_KEY_FILE
  value: {{ include "ig.keysDir" . }}/encryption-key
{{- end -}}

{{- define "ig.env.signingKey" -}}
- name: SERVICE_TOKEN_SIGNING_KEY_FILE
  value: {{ include "ig.keysDir" . }}/signing-key
- name: SERVICE_TOKEN_VERIFY_KEYS_FILE
  value: {{ include "ig.keysDir" . }}/verify-keys
{{- end -}}

{{- define "ig.keysVolumeMount" -}}
- name: keys
  mountPath: {{ include "ig.keysDir" . }}
  readOnly: true
{{- end -}}

{{/* The keys volume; pass (dict "ctx" $ "signing" true) for a role that also signs or verifies tokens. */}}
{{- define "ig.keysVolume" -}}
- name: keys
  projected:
    # 0440: the owner and the pod's fsGroup (podSecurityContext) may read; nobody may write.
    defaultMode: 288
    sources:
      - secret:
          name: {{ include "ig.encryptionKeySecret" .ctx }}
          items:
            - key: {{ include "ig.encryptionKeyKey" .ctx }}
              path: encryption-key
      {{- if .signing }}
      - secret:
          name: {{ include "ig.signingKeySecret" .ctx }}
          items:
            - key: {{ include "ig.signingKeyKey" .ctx }}
              path: signing-key
      # Older keys still accepted while rotating, when the Secret has them (no file otherwise).
      - secret:
          name: {{ include "ig.verifyKeysSecret" .ctx }}
          optional: true
          items:
            - key: verify-keys
              path: verify-keys
      {{- end }}
{{- end -}}

{{/* Platform provider keys, loaded as environment variables named by the Secret's keys. */}}
{{- define "ig.envFrom.providerKeys" -}}
{{- with include "ig.providerKeysSecret" . }}
envFrom:
  - secretRef:
      name: {{ . }}
      optional: {{ if $.Values.providerKeys.existingSecret }}true{{ else }}false{{ end }}
{{- end }}
{{- end -}}

{{/* The writable scratch space a read-only root filesystem leaves (Node and STATE_DIR use /tmp). */}}
{{- define "ig.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}
{{- define "ig.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end -}}

{{/* HorizontalPodAutoscaler spec; pass (dict "ctx" $ "name" deployment "autoscaling" values). */}}
{{- define "ig.hpaSpec" -}}
{{- $autoscaling := .autoscaling -}}
scaleTargetRef:
  apiVersion: apps/v1
  kind: Deployment
  name: {{ .name }}
minReplicas: {{ $autoscaling.minReplicas }}
maxReplicas: {{ $autoscaling.maxReplicas }}
metrics:
  {{- if $autoscaling.targetCPUUtilizationPercentage }}
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: {{ $autoscaling.targetCPUUtilizationPercentage }}
  {{- end }}
  {{- if $autoscaling.targetMemoryUtilizationPercentage }}
  - type: Resource
    resource:
      name: memory
      target:
        type: Utilization
        averageUtilization: {{ $autoscaling.targetMemoryUtilizationPercentage }}
  {{- end }}
{{- with $autoscaling.behavior }}
behavior:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
