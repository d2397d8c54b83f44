// Command gatekeeper-objects writes what Gatekeeper v3.23.1 creates at run time for the
// ConstraintTemplates and Constraints it reads on stdin, through Gatekeeper's own code:
//
//   - the per-template Constraint CRD: the constraint framework's client (frameworks/constraint
//     pkg/client/client.go CreateCRD → createCRD → crds.CreateSchema + crds.CreateCRD) with
//     Gatekeeper's validation target (gatekeeper pkg/target), converted to apiextensions/v1 as
//     pkg/controller/constrainttemplate/constrainttemplate_controller.go does;
//   - the ValidatingAdmissionPolicy `gatekeeper-<template>` for a template with CEL code that
//     generates one (constraint.ShouldGenerateVAP; transform.TemplateToPolicyDefinitionWithWebhookConfig
//     with the validation.gatekeeper.sh hook's match, as the controller passes it when
//     --sync-vap-enforcement-scope is on, its default);
//   - the binding `gatekeeper-<kind>-<constraint>` per Constraint (transform.ConstraintToBinding,
//     as pkg/controller/constraint/constraint_controller.go manageVAPB calls it).
//
// Owner references need the owner's uid, known only once it exists in a cluster: the caller
// adds them as controllerutil.SetControllerReference does (see cluster/engines.ts).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/open-policy-agent/frameworks/constraint/pkg/apis"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client/drivers/rego"
	"github.com/open-policy-agent/frameworks/constraint/pkg/core/templates"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/controller/constraint"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/controller/webhookconfig/webhookconfigcache"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/drivers/k8scel/transform"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/target"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/util"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gatekeeper-objects:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	scheme := runtime.NewScheme()
	if err := apis.AddToScheme(scheme); err != nil {
		return err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return err
	}
	driver, err := rego.New()
	if err != nil {
		return err
	}
	// As main.go sets the client up for a pod running the audit and webhook operations.
	cf, err := client.NewClient(
		client.Targets(&target.K8sValidationTarget{}),
		client.Driver(driver),
		client.EnforcementPoints(util.AuditEnforcementPoint, util.WebhookEnforcementPoint),
	)
	if err != nil {
		return err
	}

	var docs []*unstructured.Unstructured
	var hook *admissionregistrationv1.ValidatingWebhook
	reader := utilyaml.NewYAMLReader(bufio.NewReader(in))
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &u.Object); err != nil {
			return err
		}
		if len(u.Object) == 0 {
			continue
		}
		if u.GetKind() == "ValidatingWebhookConfiguration" {
			var cfg admissionregistrationv1.ValidatingWebhookConfiguration
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cfg); err != nil {
				return err
			}
			for i := range cfg.Webhooks {
				if cfg.Webhooks[i].Name == "validation.gatekeeper.sh" {
					hook = &cfg.Webhooks[i]
				}
			}
			continue
		}
		docs = append(docs, u)
	}

	// What the webhook config cache holds for validation.gatekeeper.sh
	// (pkg/controller/webhookconfig/webhookconfigcache).
	var matching *webhookconfigcache.WebhookMatchingConfig
	if hook != nil {
		matching = &webhookconfigcache.WebhookMatchingConfig{
			NamespaceSelector: hook.NamespaceSelector,
			ObjectSelector:    hook.ObjectSelector,
			Rules:             hook.Rules,
			MatchPolicy:       hook.MatchPolicy,
			MatchConditions:   hook.MatchConditions,
		}
	}
	// The --exempt-namespace flags of Gatekeeper's own manifest (deploy/gatekeeper.yaml).
	exempted := []string{"gatekeeper-system"}

	emit := func(obj any) error {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "---\n%s", b)
		return err
	}

	generates := map[string]bool{}
	ctx := context.Background()
	for _, u := range docs {
		if u.GetKind() != "ConstraintTemplate" {
			continue
		}
		versioned, err := scheme.New(u.GroupVersionKind())
		if err != nil {
			return err
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, versioned); err != nil {
			return err
		}
		ct := &templates.ConstraintTemplate{}
		if err := scheme.Convert(versioned, ct, nil); err != nil {
			return err
		}
		unversionedCRD, err := cf.CreateCRD(ctx, ct)
		if err != nil {
			return err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := scheme.Convert(unversionedCRD, crd, nil); err != nil {
			return err
		}
		crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		if err := emit(crd); err != nil {
			return err
		}
		generate, err := constraint.ShouldGenerateVAP(ct)
		if err != nil || !generate {
			continue
		}
		vap, err := transform.TemplateToPolicyDefinitionWithWebhookConfig(ct, matching, nil, exempted)
		if err != nil && !errors.Is(err, transform.ErrOperationMismatch) {
			return err
		}
		vap.SetName(fmt.Sprintf("gatekeeper-%s", ct.GetName()))
		v1, err := toV1(vap, &admissionregistrationv1.ValidatingAdmissionPolicy{})
		if err != nil {
			return err
		}
		v1.APIVersion, v1.Kind = "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"
		// v1beta1ToV1 in constrainttemplate_controller.go drops audit annotations.
		v1.Spec.AuditAnnotations = nil
		if err := emit(v1); err != nil {
			return err
		}
		generates[strings.ToLower(ct.Spec.CRD.Spec.Names.Kind)] = true
	}
	for _, u := range docs {
		if u.GetAPIVersion() != "constraints.gatekeeper.sh/v1beta1" || !generates[strings.ToLower(u.GetKind())] {
			continue
		}
		action, _, _ := unstructured.NestedString(u.Object, "spec", "enforcementAction")
		if action == "" {
			action = "deny"
		}
		binding, err := transform.ConstraintToBinding(u, []string{action})
		if err != nil {
			return err
		}
		v1, err := toV1(binding, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{})
		if err != nil {
			return err
		}
		v1.APIVersion, v1.Kind = "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"
		if err := emit(v1); err != nil {
			return err
		}
	}
	return nil
}

// toV1 carries a v1beta1 admission policy object to v1 field by field (the shapes are the same;
// Gatekeeper's v1beta1ToV1 copies them one by one for the same reason).
func toV1[T any](from any, to *T) (*T, error) {
	b, err := json.Marshal(from)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, to); err != nil {
		return nil, err
	}
	return to, nil
}
