package main

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantNS  string
		wantErr string
	}{
		{name: "token from the environment", env: map[string]string{"CHARTD_OPERATOR_INTERNAL_TOKEN": "0123456789abcdef", "CHARTD_OPERATOR_WATCH_NAMESPACE": "chartd"}, wantNS: "chartd"},
		{name: "flag wins over the environment", args: []string{"-internal-token=0123456789abcdef", "-watch-namespace=a"}, env: map[string]string{"CHARTD_OPERATOR_WATCH_NAMESPACE": "b"}, wantNS: "a"},
		{name: "no token", wantErr: "-internal-token"},
		{name: "short token", args: []string{"-internal-token=short"}, wantErr: "16+ characters"},
		{name: "bad environment value", env: map[string]string{"CHARTD_OPERATOR_INTERNAL_TOKEN": "0123456789abcdef", "CHARTD_OPERATOR_LEADER_ELECT": "maybe"}, wantErr: "CHARTD_OPERATOR_LEADER_ELECT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parse(tt.args, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c.namespace != tt.wantNS {
				t.Fatalf("parse = %+v, %v; want namespace %q", c, err, tt.wantNS)
			}
		})
	}
}
