package deploytest

import (
	"errors"
	"fmt"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// peer is one end of a connection: a pod's labels and namespace.
type peer struct {
	name      string
	namespace string
	nsLabels  map[string]string
	labels    map[string]string
}

// connection is one connection the release makes: from a peer to a
// container port of a pod.
type connection struct {
	from     peer
	to       peer
	port     int32
	portName string
	why      string
}

// ingressController stands for the default values' ingress controller:
// a pod in the namespace ingress-nginx.
var ingressController = peer{name: "the ingress controller", namespace: "ingress-nginx",
	nsLabels: map[string]string{"kubernetes.io/metadata.name": "ingress-nginx"},
	labels:   map[string]string{"app.kubernetes.io/name": "ingress-nginx"}}

// podPeer is a pod of the release as a peer.
func (c *cluster) podPeer(name string, l map[string]string) peer {
	return peer{name: name, namespace: c.ns, nsLabels: map[string]string{"kubernetes.io/metadata.name": c.ns}, labels: l}
}

// connectionTo resolves a connection to a Service's port: to the pod it
// selects and the container port it targets.
func (c *cluster) connectionTo(from peer, e endpoint, why string) (connection, error) {
	s := c.services[e.service]
	for _, p := range c.pods {
		if !selects(s.Spec.Selector, p.labels) {
			continue
		}
		for _, sp := range s.Spec.Ports {
			if sp.Port != e.port {
				continue
			}
			cp, err := p.containerPort(sp.TargetPort, sp.Port)
			if err != nil {
				return connection{}, err
			}
			name := ""
			for _, port := range p.main().Ports {
				if port.ContainerPort == cp {
					name = port.Name
				}
			}
			return connection{from: from, to: c.podPeer(p.name, p.labels), port: cp, portName: name, why: why}, nil
		}
	}
	return connection{}, fmt.Errorf("no pod serves Service %s port %d", e.service, e.port)
}

// checkNetworkPolicies answers why the release's NetworkPolicies would
// drop a connection, for each one they would: egress is checked on the
// caller, ingress on the callee, as networking.k8s.io/v1 defines them.
// ipBlock peers match no pod (pod addresses are private; the chart's
// ipBlocks are the internet).
func checkNetworkPolicies(policies []*networkingv1.NetworkPolicy, ns string, conns []connection) error {
	var errs []error
	for _, cn := range conns {
		if why := deniedBy(policies, ns, cn.from, networkingv1.PolicyTypeEgress, cn.to, cn.port, cn.portName); why != "" {
			errs = append(errs, fmt.Errorf("%s → %s:%d (%s): %s", cn.from.name, cn.to.name, cn.port, cn.why, why))
		}
		if why := deniedBy(policies, ns, cn.to, networkingv1.PolicyTypeIngress, cn.from, cn.port, cn.portName); why != "" {
			errs = append(errs, fmt.Errorf("%s → %s:%d (%s): %s", cn.from.name, cn.to.name, cn.port, cn.why, why))
		}
	}
	return errors.Join(errs...)
}

// deniedBy answers "" when the policies that isolate p for typ allow
// the other peer on the port (or none isolates p), else why not.
func deniedBy(policies []*networkingv1.NetworkPolicy, ns string, p peer, typ networkingv1.PolicyType, other peer, port int32, portName string) string {
	if p.namespace != ns {
		return "" // the release's policies isolate only its namespace's pods
	}
	var isolating []string
	for _, np := range policies {
		if !selectorMatches(&np.Spec.PodSelector, p.labels) || !hasPolicyType(np, typ) {
			continue
		}
		isolating = append(isolating, np.Name)
		if typ == networkingv1.PolicyTypeIngress {
			for _, r := range np.Spec.Ingress {
				if peersMatch(r.From, ns, other) && portsMatch(r.Ports, port, portName) {
					return ""
				}
			}
		} else {
			for _, r := range np.Spec.Egress {
				if peersMatch(r.To, ns, other) && portsMatch(r.Ports, port, portName) {
					return ""
				}
			}
		}
	}
	if len(isolating) == 0 {
		return ""
	}
	return fmt.Sprintf("%s of %s: no rule of %v allows %s on port %d", typ, p.name, isolating, other.name, port)
}

func hasPolicyType(np *networkingv1.NetworkPolicy, typ networkingv1.PolicyType) bool {
	if len(np.Spec.PolicyTypes) == 0 {
		return typ == networkingv1.PolicyTypeIngress || len(np.Spec.Egress) > 0
	}
	return slices.Contains(np.Spec.PolicyTypes, typ)
}

func selectorMatches(sel *metav1.LabelSelector, l map[string]string) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labels.Set(l))
}

// peersMatch: no peers is everyone; a peer without a namespace selector
// is in the policy's namespace.
func peersMatch(peers []networkingv1.NetworkPolicyPeer, ns string, other peer) bool {
	if len(peers) == 0 {
		return true
	}
	for _, pr := range peers {
		if pr.IPBlock != nil {
			continue
		}
		if pr.NamespaceSelector == nil {
			if other.namespace != ns {
				continue
			}
		} else if !selectorMatches(pr.NamespaceSelector, other.nsLabels) {
			continue
		}
		if pr.PodSelector != nil && !selectorMatches(pr.PodSelector, other.labels) {
			continue
		}
		return true
	}
	return false
}

func portsMatch(ports []networkingv1.NetworkPolicyPort, port int32, name string) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if p.Protocol != nil && *p.Protocol != "TCP" {
			continue
		}
		switch {
		case p.Port == nil:
			return true
		case p.Port.Type == intstr.String:
			if p.Port.StrVal == name {
				return true
			}
		case p.Port.IntVal == port, p.EndPort != nil && port >= p.Port.IntVal && port <= *p.EndPort:
			return true
		}
	}
	return false
}
