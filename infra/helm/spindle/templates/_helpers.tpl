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

{{/* DATABASE_URL from the operator's Secret: never in values, never in a ConfigMap. A component
     with a database Secret of its own (its login holding only its role, docs/configure.md,
     "Database roles") uses that one; otherwise, and for migrations, the release's. */}}
{{- define "spindle.databaseEnv" -}}
{{- $own := dict -}}
{{- if hasKey .root.Values .component -}}
{{- $own = (index .root.Values .component).database | default dict -}}
{{- end -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ get $own "existingSecret" | default (required "database.existingSecret: the Secret holding the database URL" .root.Values.database.existingSecret) }}
      key: {{ get $own "key" | default .root.Values.database.key }}
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
