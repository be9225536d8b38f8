{{/* A component's object name: <release>-<component> when the release's name says spindle,
     else <release>-spindle-<component>; at most 63 characters. */}}
{{- define "spindle.name" -}}
{{- if contains "spindle" .root.Release.Name -}}
{{- printf "%s-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-spindle-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "spindle.labels" -}}
app.kubernetes.io/name: spindle
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{- define "spindle.selector" -}}
app.kubernetes.io/name: spindle
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "spindle.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "spindle.serviceAccountName" -}}
{{- $values := index .root.Values .component -}}
{{- if $values.serviceAccount.create -}}
{{- default (include "spindle.name" .) $values.serviceAccount.name -}}
{{- else -}}
{{- default "default" $values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* DATABASE_URL from the operator's Secret: never in values, never in a ConfigMap. A service
     reads its own login's URL (docs/configure.md, "Database roles"), never the owner's; the
     migration Job reads the owner's. */}}
{{- define "spindle.databaseEnv" -}}
{{- if eq .component "migrate" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "database.existingSecret: the Secret holding the schema owner's database URL" .root.Values.database.existingSecret }}
      key: {{ .root.Values.database.key }}
{{- else -}}
{{- $own := (index .root.Values .component).database | default dict -}}
{{- $secret := required (printf "%s.database.existingSecret: the Secret holding the URL of spindle_%s_login (docs/configure.md, \"Database roles\")" .component .component) (get $own "existingSecret") -}}
{{- $key := get $own "key" | default "url" -}}
{{- if and (eq $secret .root.Values.database.existingSecret) (eq $key .root.Values.database.key) -}}
{{- fail (printf "%s.database is the schema owner's Secret: row-level security does not hold the owner; give the %s the URL of spindle_%s_login" .component .component .component) -}}
{{- end -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
{{- end -}}
{{- end -}}

{{/* The migration Job's view of each service's URL: it sets that login's password from it. */}}
{{- define "spindle.serviceDatabaseUrlsEnv" -}}
{{- range $service := list "console" "gateway" "worker" }}
{{- $own := (index $.Values $service).database | default dict }}
- name: SPINDLE_{{ upper $service }}_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required (printf "%s.database.existingSecret" $service) (get $own "existingSecret") }}
      key: {{ get $own "key" | default "url" }}
{{- end }}
{{- end -}}

{{/* A read-only root file system and no privileges: the services write nothing but /tmp. */}}
{{- define "spindle.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "spindle.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "spindle.agentImage" -}}
{{- printf "%s:%s" .Values.agent.image.repository (default .Chart.AppVersion .Values.agent.image.tag) -}}
{{- end -}}

{{/* The agent's Secret with the enrolment token: the operator's, or the chart's from agent.enrolmentToken.token. */}}
{{- define "spindle.agentTokenSecret" -}}
{{- $t := .Values.agent.enrolmentToken -}}
{{- if $t.existingSecret -}}
{{- $t.existingSecret -}}
{{- else -}}
{{- include "spindle.name" (dict "root" . "component" "agent-enrolment") -}}
{{- end -}}
{{- end -}}

{{/* agent.yaml: where the pod's mounts put the host's files, the enrolment kept on the node,
     then the operator's agent.config over it. */}}
{{- define "spindle.agentConfig" -}}
{{- $a := .Values.agent -}}
{{- $fixed := dict
  "gateway" (required "agent.gatewayUrl or gatewayUrl: the gateway the agents enrol with" (default .Values.gatewayUrl $a.gatewayUrl))
  "state_dir" "/var/lib/spindle"
  "enrolment_file" "/var/lib/spindle/enrolment.yaml"
  "enrolment_token_file" "/etc/spindle/enrolment/token"
  "host_root" "/host/root"
  "proc_path" "/host/proc"
  "sys_path" "/host/sys" -}}
{{- if $a.managedPaths }}{{- $_ := set $fixed "policy_roots" $a.managedPaths -}}{{- end -}}
{{- if $a.fragmentationPaths }}{{- $_ := set $fixed "fragmentation" (dict "paths" $a.fragmentationPaths) -}}{{- end -}}
{{- toYaml (mergeOverwrite $fixed (deepCopy $a.config)) -}}
{{- end -}}
