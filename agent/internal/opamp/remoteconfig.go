package opamp

import (
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/open-telemetry/opamp-go/client"
	"github.com/open-telemetry/opamp-go/protobufs"
)

// applyRemoteConfig applies the policy in a RemoteConfig and reports the outcome. Called by
// opamp-go one message at a time.
func (c *Client) applyRemoteConfig(ctx context.Context, oc client.OpAMPClient, rc *protobufs.AgentRemoteConfig) {
	hash := hex.EncodeToString(rc.GetConfigHash())
	c.mu.Lock()
	current := c.status
	c.mu.Unlock()
	if current.GetStatus() == protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED &&
		hex.EncodeToString(current.GetLastRemoteConfigHash()) == hash {
		// The same policy again (a gateway re-offering it after a reconnect or a lost answer):
		// applying it again would restart the features for nothing; answer with the status.
		if err := oc.SetRemoteConfigStatus(current); err != nil {
			c.settings.Logger.Warn("could not report the policy status", "error", err)
		}
		return
	}
	status := &protobufs.RemoteConfigStatus{LastRemoteConfigHash: rc.GetConfigHash(), Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED}
	document, err := policyDocument(rc)
	if err == nil {
		err = c.settings.Policy.Apply(ctx, document, hash)
	}
	if err != nil {
		status.Status, status.ErrorMessage = protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED, err.Error()
		c.settings.Logger.Warn("refused the policy from the gateway", "hash", hash, "error", err)
	} else {
		c.settings.Logger.Info("applied the policy from the gateway", "hash", hash)
		if err := oc.UpdateEffectiveConfig(ctx); err != nil {
			c.settings.Logger.Debug("could not report the effective policy", "error", err)
		}
	}
	c.mu.Lock()
	c.status = status
	c.mu.Unlock()
	if err := oc.SetRemoteConfigStatus(status); err != nil {
		c.settings.Logger.Warn("could not report the policy status", "error", err)
	}
}

// policyDocument finds the policy in the config map.
func policyDocument(rc *protobufs.AgentRemoteConfig) ([]byte, error) {
	files := rc.GetConfig().GetConfigMap()
	file, ok := files[PolicyConfigName]
	if !ok {
		names := make([]string, 0, len(files))
		for name := range files {
			names = append(names, name)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("the gateway sent no %s entry (got %s); update the gateway", PolicyConfigName, strings.Join(names, ", "))
	}
	if ct := file.GetContentType(); ct != "" && ct != "application/json" {
		return nil, fmt.Errorf("the policy arrived as %q, not application/json; update the gateway", ct)
	}
	return file.GetBody(), nil
}

// effectiveConfig is the policy in force as received; empty before the first one.
func (c *Client) effectiveConfig() *protobufs.EffectiveConfig {
	files := map[string]*protobufs.AgentConfigFile{}
	if lkg, ok := c.settings.Policy.LastKnownGood(); ok {
		files[PolicyConfigName] = &protobufs.AgentConfigFile{Body: lkg.Document, ContentType: "application/json"}
	}
	return &protobufs.EffectiveConfig{ConfigMap: &protobufs.AgentConfigMap{ConfigMap: files}}
}
