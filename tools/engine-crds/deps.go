//go:build tools

// Package enginecrds pins the engines' API packages controller-gen reads.
package enginecrds

import (
	_ "github.com/kyverno/api/api/policies.kyverno.io/v1"
	_ "github.com/kyverno/kyverno/api/kyverno/v1"
	_ "github.com/open-policy-agent/frameworks/constraint/pkg/apis/templates/v1"
)
