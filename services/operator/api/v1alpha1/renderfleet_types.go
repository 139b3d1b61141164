package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RenderFleetSpec describes the render fleet: chartd's render target run
// as a Deployment whose replica count the operator keeps in line with the
// load the pods report.
type RenderFleetSpec struct {
	// MinReplicas is the fewest render pods, however idle.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=2
	MinReplicas int32 `json:"minReplicas"`
	// MaxReplicas is the most render pods, however busy.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=10
	MaxReplicas int32 `json:"maxReplicas"`
	// Replicas, when set, is the pod count an outside autoscaler (an HPA,
	// KEDA) asks for through the scale subresource: the operator keeps it
	// within MinReplicas and MaxReplicas and stops scaling by the pods'
	// load. Unset, the operator scales by load.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// TabsPerPod is how many Chromium tabs each pod keeps warm (one
	// browser per tab: -render.browsers=N -render.tabs=1).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +kubebuilder:default=2
	TabsPerPod int32 `json:"tabsPerPod"`
	// TargetQueuePerPod is how many renders may wait per pod, on average,
	// beside the busy tabs, before the fleet grows.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=2
	TargetQueuePerPod int32 `json:"targetQueuePerPod"`
	// ScaleDownStabilization is how long the load must stay low before the
	// fleet shrinks; growth is immediate.
	// +kubebuilder:default="5m"
	ScaleDownStabilization metav1.Duration `json:"scaleDownStabilization"`
	// PollInterval is how often each pod's fleet stats are read.
	// +kubebuilder:default="15s"
	PollInterval metav1.Duration `json:"pollInterval"`
	// Image is the render image (repository:tag or repository@digest).
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`
	// ImagePullPolicy of the render container.
	// +optional
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
	// ImagePullSecrets for the render pods.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// Resources of the render container; size memory from the per-tab RSS
	// times TabsPerPod.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Args are added after the operator's own (-target=render, -addr,
	// -render.browsers, -render.tabs): backends, service URLs, flags.
	// +optional
	Args []string `json:"args,omitempty"`
	// Env of the render container: secrets come in here by secretKeyRef.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// SecretsKey is the Secret key holding chartd's server key (64 hex
	// characters) that seals image-link signing keys. The operator copies
	// it with mode 0400 into memory, where -secrets-key-file reads it:
	// chartd refuses a key file that its group may read, and a Secret
	// volume under fsGroup always is.
	// +optional
	SecretsKey *corev1.SecretKeySelector `json:"secretsKey,omitempty"`
	// Volumes and VolumeMounts are added to the pod beside the operator's
	// own /tmp and /dev/shm, e.g. the secrets key file.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// PodLabels are added to the pods, e.g. for NetworkPolicies.
	// +optional
	PodLabels map[string]string `json:"podLabels,omitempty"`
	// PodAnnotations are added to the pods.
	// +optional
	PodAnnotations map[string]string `json:"podAnnotations,omitempty"`
	// ServiceAccountName runs the pods; its token is not mounted.
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// TerminationGracePeriodSeconds must exceed chartd's -shutdown.delay
	// plus -shutdown-timeout.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=30
	TerminationGracePeriodSeconds int64 `json:"terminationGracePeriodSeconds"`
	// NodeSelector, Tolerations and Affinity place the pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// Recycle recreates pods whose Chromium memory keeps growing.
	// +optional
	Recycle RecycleSpec `json:"recycle,omitempty"`
}

// RecycleSpec says when a pod's Chromium memory is taken to be leaking:
// it grew at every one of the last Samples readings and is above MemoryMiB.
type RecycleSpec struct {
	// MemoryMiB is the Chromium RSS above which growth counts; 0 turns
	// recycling off.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MemoryMiB int64 `json:"memoryMiB,omitempty"`
	// Samples is how many consecutive growing readings make a leak.
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:default=5
	// +optional
	Samples int32 `json:"samples,omitempty"`
}

// RenderFleetStatus is what the operator last saw and did.
type RenderFleetStatus struct {
	// ObservedGeneration is the spec generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is the replica count the operator set on the Deployment.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Selector selects the fleet's pods, in label-selector string form:
	// what an HPA reads through the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`
	// ReadyReplicas is the Deployment's ready pods.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// DesiredReplicas is what the last stats reading asked for, before
	// the scale-down window.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas,omitempty"`
	// Queue and BusyTabs are the fleet's totals at the last reading.
	// +optional
	Queue int32 `json:"queue,omitempty"`
	// +optional
	BusyTabs int32 `json:"busyTabs,omitempty"`
	// P95RenderMillis is the highest per-pod p95 render time read.
	// +optional
	P95RenderMillis int64 `json:"p95RenderMillis,omitempty"`
	// ScaleDownSince is when the load first asked for fewer pods without
	// a break; the fleet shrinks once the stabilization window has passed.
	// +optional
	ScaleDownSince *metav1.Time `json:"scaleDownSince,omitempty"`
	// LastScaleTime is when the replica count last changed.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`
	// Conditions: Reconciled, StatsAvailable, Available, each with the
	// generation it was computed for.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RenderFleet is chartd's render fleet: the operator owns its Deployment,
// Service and PodDisruptionBudget and scales it by the pods' load.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=rf
// +kubebuilder:validation:XValidation:rule="self.spec.minReplicas <= self.spec.maxReplicas",message="spec.minReplicas must not exceed spec.maxReplicas"
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.status.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Queue",type=integer,JSONPath=`.status.queue`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RenderFleet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RenderFleetSpec   `json:"spec,omitempty"`
	Status RenderFleetStatus `json:"status,omitempty"`
}

// RenderFleetList is a list of RenderFleets.
//
// +kubebuilder:object:root=true
type RenderFleetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RenderFleet `json:"items"`
}
