// Package v1alpha1 is the chartd.dev/v1alpha1 API: the RenderFleet that
// describes chartd's render fleet to the operator.
//
// +kubebuilder:object:generate=true
// +groupName=chartd.dev
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of the API, as the CRD declares.
var GroupVersion = schema.GroupVersion{Group: "chartd.dev", Version: "v1alpha1"}

// AddToScheme registers the API's kinds on s; the operator and its tests
// build their schemes with it rather than from package state.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &RenderFleet{}, &RenderFleetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
