// The Kubernetes backend's conversions (host/backend/kubernetes/api_objects.cpp) and
// kubeconfig loading (kubeconfig.cpp): what Kubernetes objects become in the cache, and
// that odd or hostile values are warned about and skipped, never a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "host/backend/kubernetes/api_objects.hpp"
#include "host/backend/kubernetes/kube_cluster.hpp"
#include "host/backend/kubernetes/kubeconfig.hpp"
#include "host/backend/kubernetes/rate_limiter.hpp"
#include "host/util/input_error.hpp"
#include "tests/unit/test_support.hpp"

namespace caldera::k8s {
namespace {
using caldera::testing::input_error_of;

json pod(const std::string& text) { return json::parse(text); }

bool mentions(const Warnings& w, const std::string& s) {
  for (const auto& line : w)
    if (line.find(s) != std::string::npos) return true;
  return false;
}

TEST(KubePodRequests, SumsContainersTakesInitPeakAddsSidecarsAndOverhead) {
  // Two containers (1 + 0.5 cpu), an init container of 3 cpu, then a sidecar of 250m,
  // overhead 100m: running = 1.5 + 0.25 + 0.1; while initialising the 3-cpu container
  // runs alone (the sidecar starts after it): 3 + 0.1.
  json spec = pod(R"({
    "containers": [
      {"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
      {"name": "b", "resources": {"requests": {"cpu": "500m", "nvidia.com/gpu": 1}}}],
    "initContainers": [
      {"name": "init", "resources": {"requests": {"cpu": "3"}}},
      {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "250m"}}}],
    "overhead": {"cpu": "100m"}
  })");
  Warnings w;
  PodRequests r = pod_requests(spec, "pod t/p", w);
  EXPECT_TRUE(w.empty());
  EXPECT_DOUBLE_EQ(r.running.at("cpu"), 1850);
  EXPECT_DOUBLE_EQ(r.running.at("memory"), 1073741824.0);
  EXPECT_DOUBLE_EQ(r.running.at("nvidia.com/gpu"), 1000);
  // Init phase: the 3-cpu init container runs alone (the sidecar starts after it).
  EXPECT_DOUBLE_EQ(r.init.at("cpu"), 3100);
}

TEST(KubePodRequests, SidecarStartedBeforeAnInitContainerRunsBesideIt) {
  json spec = pod(R"({
    "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}],
    "initContainers": [
      {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
      {"name": "init", "resources": {"requests": {"cpu": "2"}}}]
  })");
  Warnings w;
  PodRequests r = pod_requests(spec, "pod t/p", w);
  EXPECT_DOUBLE_EQ(r.running.at("cpu"), 2000);  // container + sidecar
  EXPECT_DOUBLE_EQ(r.init.at("cpu"), 3000);     // init container + the sidecar already up
}

TEST(KubePodRequests, PodLevelRequestsReplaceCpuAndMemory) {
  json spec = pod(R"({
    "resources": {"requests": {"cpu": "4", "memory": "2Gi"}},
    "containers": [{"name": "a", "resources": {"requests": {"cpu": "1", "example.com/x": "2"}}}]
  })");
  Warnings w;
  PodRequests r = pod_requests(spec, "pod t/p", w);
  EXPECT_DOUBLE_EQ(r.running.at("cpu"), 4000);
  EXPECT_DOUBLE_EQ(r.running.at("memory"), 2147483648.0);
  EXPECT_DOUBLE_EQ(r.running.at("example.com/x"), 2000);
}

TEST(KubeResources, HostileAmountsAreWarnedAboutAndSkipped) {
  Warnings w;
  ResourceList r = read_resource_list(json::parse(R"({
    "cpu": "-2", "memory": "999999999999999Ei", "nvidia.com/gpu": "lots",
    "bogus": "1", "ephemeral-storage": "10Gi", "example.com/ok": true,
    "hugepages-2Mi": "4Mi"
  })"),
                                      "pod t/p: requests", w);
  EXPECT_EQ(r.count("cpu"), 0u);                      // negative
  EXPECT_DOUBLE_EQ(r.at("memory"), 1e18);             // capped
  EXPECT_EQ(r.count("nvidia.com/gpu"), 0u);           // not a quantity
  EXPECT_EQ(r.count("bogus"), 0u);                    // not a resource name
  EXPECT_EQ(r.count("ephemeral-storage"), 0u);        // not scheduled on, silently
  EXPECT_EQ(r.count("example.com/ok"), 0u);           // a boolean is no quantity
  EXPECT_DOUBLE_EQ(r.at("hugepages-2Mi"), 4194304000.0);  // scalar: milli-units
  EXPECT_TRUE(mentions(w, "cpu: '-2' is negative"));
  EXPECT_TRUE(mentions(w, "capped"));
  EXPECT_TRUE(mentions(w, "nvidia.com/gpu: 'lots' is not a quantity"));
  EXPECT_TRUE(mentions(w, "'bogus' is not a resource name"));
  EXPECT_FALSE(mentions(w, "ephemeral-storage"));
  EXPECT_EQ(w.size(), 5u);
}

TEST(KubeResources, WrongShapesDoNotThrow) {
  Warnings w;
  EXPECT_TRUE(read_resource_list(json::parse(R"(["cpu"])"), "x", w).empty());
  EXPECT_TRUE(mentions(w, "not a resource map"));
  // Containers that are not a list, requests that are a string, a number for a name.
  json spec = pod(R"({"containers": {"a": 1}, "initContainers": [{"name": 3,
                      "resources": {"requests": "1 cpu"}}], "overhead": 7})");
  Warnings w2;
  PodRequests r;
  EXPECT_NO_THROW(r = pod_requests(spec, "pod t/p", w2));
  EXPECT_TRUE(r.running.empty());
  EXPECT_FALSE(w2.empty());
}

TEST(KubePods, WhichPodsEnterTheCache) {
  std::vector<std::string> ours{"volcano"};
  Warnings w;
  // Ours, pending, with a PodGroup.
  auto p = pod_from_json(pod(R"({
    "metadata": {"name": "p", "namespace": "t", "uid": "u1",
                 "creationTimestamp": "2024-05-01T12:00:00Z",
                 "annotations": {"scheduling.k8s.io/group-name": "g"}},
    "spec": {"schedulerName": "volcano", "priority": 100, "priorityClassName": "high",
             "preemptionPolicy": "Never", "nodeSelector": {"zone": "a"},
             "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
             "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
    "status": {"phase": "Pending"}})"),
                         ours, w);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->key(), "t/p");
  EXPECT_EQ(p->podgroup, "g");
  EXPECT_TRUE(p->schedulable);
  EXPECT_EQ(p->priority, 100);
  EXPECT_TRUE(p->preempt_never);
  EXPECT_EQ(p->node_selector.at("zone"), "a");
  ASSERT_EQ(p->tolerations.size(), 1u);
  EXPECT_EQ(p->tolerations[0].op, "Exists");
  EXPECT_DOUBLE_EQ(p->created, 1714564800);
  EXPECT_TRUE(w.empty());

  // Someone else's pending pod: not ours to schedule, holds nothing.
  EXPECT_FALSE(pod_from_json(pod(R"({"metadata": {"name": "q", "namespace": "t"},
      "spec": {"schedulerName": "default-scheduler"}, "status": {"phase": "Pending"}})"),
                             ours, w));
  // Someone else's running pod: counts on its node, belongs to no job.
  auto f = pod_from_json(pod(R"({"metadata": {"name": "r", "namespace": "t",
      "annotations": {"scheduling.k8s.io/group-name": "g"}},
      "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})"),
                         ours, w);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->schedulable);
  EXPECT_TRUE(f->podgroup.empty());
  EXPECT_EQ(f->node, "n1");
  // Someone else's finished pod: gone from the node's books.
  EXPECT_FALSE(pod_from_json(pod(R"({"metadata": {"name": "s", "namespace": "t"},
      "spec": {"nodeName": "n1"}, "status": {"phase": "Succeeded"}})"),
                             ours, w));
  // Being deleted: releasing.
  auto d = pod_from_json(pod(R"({"metadata": {"name": "d", "namespace": "t",
      "deletionTimestamp": "2024-05-01T12:00:00Z"},
      "spec": {"schedulerName": "volcano", "nodeName": "n1"}, "status": {"phase": "Running"}})"),
                         ours, w);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->releasing);
}

TEST(KubePods, MalformedPodsAreSkippedOrRepaired) {
  std::vector<std::string> ours{"volcano"};
  Warnings w;
  EXPECT_FALSE(pod_from_json(json::parse(R"({"metadata": {"namespace": "t"}})"), ours, w));
  EXPECT_TRUE(mentions(w, "without a name"));
  Warnings w2;
  auto p = pod_from_json(json::parse(R"({"metadata": {"name": "p", "namespace": "t",
      "labels": {"a": 1}}, "spec": {"schedulerName": "volcano", "priority": 99999999999,
      "tolerations": [{"key": "k", "operator": "Maybe"}]}, "status": "weird"})"),
                         ours, w2);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->priority.has_value());
  EXPECT_TRUE(p->labels.empty());
  EXPECT_TRUE(p->tolerations.empty());
  EXPECT_EQ(p->phase, PodPhase::Pending);
  EXPECT_TRUE(mentions(w2, "does not fit in 32 bits"));
  EXPECT_TRUE(mentions(w2, "neither Equal nor Exists"));
  EXPECT_TRUE(mentions(w2, "labels['a'] is not a string"));
}

// spec.affinity, topologySpreadConstraints, host ports and images are read into the
// pod's constraints; an object the API server would refuse is reported with the pod and the
// field, and one of our pending pods is then left out rather than placed against it.
TEST(KubePods, SchedulingConstraints) {
  std::vector<std::string> ours{"volcano"};
  Warnings w;
  auto p = pod_from_json(json::parse(R"({"metadata": {"name": "p", "namespace": "t"},
      "spec": {"schedulerName": "volcano",
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
          {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "a"}}}]}},
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
          "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "a"}}}],
        "containers": [{"name": "c", "image": "registry/a", "ports": [{"containerPort": 80, "hostPort": 8080}]}],
        "initContainers": [{"name": "i", "image": "registry/init:2"}]}})"),
                         ours, w);
  ASSERT_TRUE(p);
  EXPECT_TRUE(w.empty());
  ASSERT_TRUE(p->constraints);
  const cal_pod_constraints* c = p->constraints->view();
  ASSERT_EQ(c->required_anti_affinity_count, 1u);
  EXPECT_STREQ(c->required_anti_affinity[0].topology_key, "kubernetes.io/hostname");
  ASSERT_EQ(c->spread_count, 1u);
  EXPECT_EQ(c->spread[0].do_not_schedule, 1);
  EXPECT_EQ(c->spread[0].min_domains, 1);
  ASSERT_EQ(c->host_port_count, 1u);
  EXPECT_EQ(c->host_ports[0].port, 8080);
  EXPECT_STREQ(c->host_ports[0].protocol, "TCP");
  EXPECT_STREQ(c->host_ports[0].host_ip, "0.0.0.0");
  ASSERT_EQ(c->images.count, 2u);
  EXPECT_STREQ(c->images.items[0], "registry/a:latest");  // no tag: normalised
  EXPECT_STREQ(c->images.items[1], "registry/init:2");

  Warnings w2;
  EXPECT_FALSE(pod_from_json(json::parse(R"({"metadata": {"name": "q", "namespace": "t"},
      "spec": {"schedulerName": "volcano", "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "zone", "operator": "Gt", "values": ["high"]}]}]}}}}})"),
                             ours, w2));
  EXPECT_TRUE(mentions(w2, "pod t/q: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnored"
                           "DuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: 1 "
                           "value(s) with operator Gt; expected exactly one value, an integer; "
                           "the pod is not scheduled"))
      << w2.front();

  Warnings w3;
  auto n = node_from_json(json::parse(R"({"metadata": {"name": "n1"},
      "status": {"images": [{"names": ["registry/a:latest"], "sizeBytes": 1000},
                            {"names": "registry/b"}]}})"),
                          w3);
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->images);
  EXPECT_TRUE(mentions(w3, "node n1: status.images[1].names: got a string; expected an array; "
                           "the node's images are not used"))
      << w3.front();
}

// Storage objects as the API server sends them (with the fields it adds), CSINodes as
// node resources, pods' claims, and pods with DRA resource claims kept out.
TEST(KubeStorage, ObjectsClaimsAndCsiNodes) {
  Warnings w;
  auto pv = persistent_volume_from_json(json::parse(R"({"apiVersion": "v1", "kind": "PersistentVolume",
      "metadata": {"name": "pv-1", "uid": "u1", "resourceVersion": "42", "creationTimestamp": "2026-01-01T00:00:00Z",
                   "finalizers": ["kubernetes.io/pv-protection"], "labels": {"topology.kubernetes.io/zone": "a"}},
      "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
               "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "local", "volumeMode": "Filesystem",
               "local": {"path": "/mnt/a"},
               "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "t", "name": "data", "uid": "c1"},
               "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                 {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}}},
      "status": {"phase": "Bound", "lastPhaseTransitionTime": "2026-01-01T00:00:00Z"}})"),
                                        w);
  ASSERT_TRUE(pv) << (w.empty() ? "" : w.front());
  EXPECT_EQ(pv->meta.resource_version, "42");
  EXPECT_DOUBLE_EQ(pv->capacity, 10.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(pv->phase, CAL_VOLUME_BOUND);
  EXPECT_EQ(pv->claim_uid, "c1");
  ASSERT_EQ(pv->node_affinity.size(), 1u);

  auto claim = claim_from_json(json::parse(R"({"metadata": {"name": "data", "namespace": "t", "uid": "c1",
        "annotations": {"volume.kubernetes.io/selected-node": "n1"}},
      "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
               "resources": {"requests": {"storage": "5Gi"}}, "volumeMode": "Filesystem"},
      "status": {"phase": "Pending"}})"),
                               w);
  ASSERT_TRUE(claim);
  EXPECT_EQ(claim->key(), "t/data");
  ASSERT_NE(claim->meta.annotation(kAnnSelectedNode), nullptr);

  auto sc = storage_class_from_json(json::parse(R"({"metadata": {"name": "local"},
      "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer",
      "reclaimPolicy": "Delete"})"),
                                    w);
  ASSERT_TRUE(sc);
  EXPECT_TRUE(sc->wait_for_first_consumer);
  EXPECT_TRUE(w.empty());

  Warnings bad;
  EXPECT_FALSE(persistent_volume_from_json(json::parse(R"({"metadata": {"name": "pv-2"},
      "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnse"]}})"),
                                           bad));
  EXPECT_TRUE(mentions(bad, "PersistentVolume pv-2: spec.accessModes[0]: unknown value "
                            "'ReadWriteOnse' (did you mean 'ReadWriteOnce'?)"))
      << bad.front();

  const ResourceList csi = csi_node_resources(json::parse(R"({"metadata": {"name": "n1"},
      "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-1", "allocatable": {"count": 25}},
                           {"name": "hostpath/x", "nodeID": "n1"}]}})"),
                                          w);
  EXPECT_DOUBLE_EQ(csi.at("attachable-volumes-csi-ebs.csi.aws.com"), 25);
  EXPECT_DOUBLE_EQ(csi.at("attachable-volumes-csi-hostpath-x"), 2147483647.0);
  Warnings bad_csi;
  EXPECT_TRUE(csi_node_resources(json::parse(R"({"metadata": {"name": "n2"},
      "spec": {"drivers": [{"nodeID": "n2"}]}})"),
                                 bad_csi)
                  .empty());
  EXPECT_TRUE(mentions(bad_csi, "CSINode n2: a driver without a name; ignored"));

  std::vector<std::string> ours{"volcano"};
  auto p = pod_from_json(json::parse(R"({"metadata": {"name": "p", "namespace": "t"},
      "spec": {"schedulerName": "volcano", "volumes": [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
        {"name": "kube-api-access", "projected": {"sources": []}}]}})"),
                         ours, w);
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->constraints);
  ASSERT_EQ(p->constraints->view()->claims.count, 1u);
  EXPECT_STREQ(p->constraints->view()->claims.items[0], "data");

  Warnings dra;
  EXPECT_FALSE(pod_from_json(json::parse(R"({"metadata": {"name": "g", "namespace": "t"},
      "spec": {"schedulerName": "volcano", "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-1"}]}})"),
                             ours, dra));
  EXPECT_TRUE(mentions(dra, "pod t/g: spec.resourceClaims: resource claims (DRA) are not "
                            "supported; the pod is not scheduled"));
}

TEST(KubeNodes, AllocatablePodsAndReadiness) {
  Warnings w;
  auto n = node_from_json(json::parse(R"({"metadata": {"name": "n1", "labels": {"zone": "a"}},
      "spec": {"unschedulable": true, "taints": [{"key": "gpu", "effect": "NoSchedule"}, {"effect": "x"}]},
      "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "64"},
                 "conditions": [{"type": "Ready", "status": "True"}]}})"),
                          w);
  ASSERT_TRUE(n);
  EXPECT_DOUBLE_EQ(n->allocatable.at("cpu"), 8000);
  EXPECT_EQ(n->allocatable.count("pods"), 0u);
  EXPECT_EQ(n->max_pods, 64);
  EXPECT_TRUE(n->ready);
  EXPECT_TRUE(n->unschedulable);
  EXPECT_EQ(n->taints.size(), 1u);
  EXPECT_TRUE(mentions(w, "a taint has no key"));
  auto not_ready = node_from_json(json::parse(R"({"metadata": {"name": "n2"}})"), w);
  ASSERT_TRUE(not_ready);
  EXPECT_FALSE(not_ready->ready);
}

// Values at Kubernetes' own limits are normal, not hostile: a 253-character prefix and a
// 63-character name in a label key, a 63-character value, a 200 kB annotation. Amounts past
// what a double holds, and a pod limit past any node, are.
TEST(KubeNodes, LimitsAndEnormousValues) {
  const std::string key = std::string(63, 'a') + "." + std::string(63, 'b') + "." +
                          std::string(63, 'c') + "." + std::string(61, 'd') + "/" +
                          std::string(63, 'n');
  ASSERT_EQ(key.size(), 253u + 1 + 63);
  const std::string value(63, 'v');
  json node = {{"metadata", {{"name", "n1"}, {"labels", {{key, value}}},
                             {"annotations", {{"example.com/blob", std::string(200 * 1024, 'x')}}}}},
               {"status",
                {{"allocatable",
                  {{"cpu", "1e400"}, {"memory", "16Gi"}, {"pods", "1e12"}, {"example.com/huge", "1e30"}}},
                 {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  Warnings w;
  auto n = node_from_json(node, w);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->labels.at(key), value);
  EXPECT_DOUBLE_EQ(n->allocatable.at("cpu"), 1e18);       // past a double: capped
  EXPECT_DOUBLE_EQ(n->allocatable.at("memory"), 16.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(n->allocatable.at("example.com/huge"), 1e18);  // capped
  EXPECT_EQ(n->max_pods, 1000000);
  EXPECT_TRUE(mentions(w, "node n1: allocatable: cpu: '1e400' is beyond any real amount"));
  EXPECT_TRUE(mentions(w, "node n1: allocatable: example.com/huge: '1e30' is beyond any real amount"));
  EXPECT_TRUE(mentions(w, "node n1: allocatable: pods: 1000000000000 is beyond any real node"));
  EXPECT_EQ(w.size(), 3u);  // nothing about the labels or the annotation

  Warnings w2;
  json p = {{"metadata", {{"name", "p"}, {"namespace", "t"}, {"labels", {{key, value}}}}},
            {"spec", {{"schedulerName", "volcano"}}}};
  auto pod = pod_from_json(p, {"volcano"}, w2);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->labels.at(key), value);
  EXPECT_TRUE(w2.empty());
}

// The minResources Volcano's job controller writes (found by the e2e suite with Volcano's
// controllers): quota names beside the resources. count/pods is skipped and requests.*
// not counted, as Volcano's NewResource does, and neither is warned about.
TEST(KubePodGroups, MinResourcesFromVolcanosControllers) {
  Warnings w;
  auto pg = podgroup_from_json(json::parse(R"({"metadata": {"name": "job-1", "namespace": "t"},
      "spec": {"minMember": 5, "queue": "default", "minResources": {"cpu": "5", "memory": "5Gi",
               "pods": "5", "count/pods": "5", "requests.cpu": "5", "requests.memory": "5Gi",
               "limits.cpu": "5"}}})"),
                               w);
  ASSERT_TRUE(pg);
  ASSERT_TRUE(pg->min_resources);
  const ResourceList& r = *pg->min_resources;
  EXPECT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(r.at("cpu"), 5000);
  EXPECT_DOUBLE_EQ(r.at("memory"), 5.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(r.at("pods"), 5);
  EXPECT_TRUE(w.empty()) << w.front();
}

TEST(KubePodGroups, FieldsAndBadValues) {
  Warnings w;
  auto pg = podgroup_from_json(json::parse(R"({"metadata": {"name": "g", "namespace": "t",
      "creationTimestamp": "2024-05-01T12:00:00Z"},
      "spec": {"minMember": 3, "minTaskMember": {"ps": 1, "worker": -2}, "queue": "q1",
               "minResources": {"cpu": "6"}, "priorityClassName": "high"},
      "status": {"phase": "Inqueue", "conditions": [{"type": "Unschedulable", "status": "True",
                 "lastTransitionTime": "2024-05-01T12:01:00+00:00"}]}})"),
                               w);
  ASSERT_TRUE(pg);
  EXPECT_EQ(pg->min_member, 3);
  EXPECT_EQ(pg->min_task_member.size(), 1u);
  EXPECT_EQ(pg->queue, "q1");
  EXPECT_EQ(pg->phase, JobPhase::Inqueue);
  EXPECT_DOUBLE_EQ(pg->min_resources->at("cpu"), 6000);
  EXPECT_DOUBLE_EQ(pg->phase_since, 1714564860);
  EXPECT_TRUE(mentions(w, "minTaskMember['worker'] is negative"));

  Warnings w2;
  EXPECT_FALSE(podgroup_from_json(json::parse(R"({"metadata": {"name": "g", "namespace": "t"},
      "spec": {"minMember": -1}})"),
                                  w2));
  EXPECT_TRUE(mentions(w2, "minMember -1 is negative; the PodGroup is skipped"));
  Warnings w3;
  auto odd = podgroup_from_json(json::parse(R"({"metadata": {"name": "g", "namespace": "t"},
      "spec": {"minMember": "3"}, "status": {"phase": "Exploded"}})"),
                                w3);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->queue, "default");
  EXPECT_EQ(odd->phase, JobPhase::Pending);
  EXPECT_TRUE(mentions(w3, "'minMember' is not an integer"));
  EXPECT_TRUE(mentions(w3, "'Exploded' is not a PodGroup phase"));
}

TEST(KubeQueues, WeightGuaranteeStateParent) {
  Warnings w;
  auto q = queue_from_json(json::parse(R"({"metadata": {"name": "q"},
      "spec": {"weight": 0, "capability": {"cpu": "10"}, "guarantee": {"resource": {"cpu": "2"}},
               "reclaimable": false, "parent": "q"},
      "status": {"state": "Closed"}})"),
                           w);
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->weight, 1);  // Volcano's webhook default
  EXPECT_DOUBLE_EQ(q->capability->at("cpu"), 10000);
  EXPECT_DOUBLE_EQ(q->guarantee->at("cpu"), 2000);
  EXPECT_FALSE(q->reclaimable);
  EXPECT_EQ(q->state, QueueState::Closed);
  EXPECT_TRUE(q->parent.empty());
  EXPECT_TRUE(mentions(w, "names itself as parent"));
}

TEST(KubeTime, Rfc3339) {
  EXPECT_DOUBLE_EQ(*parse_time("1970-01-01T00:00:10Z"), 10);
  EXPECT_DOUBLE_EQ(*parse_time("1970-01-01T01:00:00.5+01:00"), 0.5);
  EXPECT_FALSE(parse_time("yesterday"));
  EXPECT_FALSE(parse_time("1970-13-01T00:00:00Z"));
  EXPECT_EQ(format_time(10), "1970-01-01T00:00:10Z");
  EXPECT_EQ(format_time(10.25, true), "1970-01-01T00:00:10.250000Z");
}

// ---- kubeconfig -----------------------------------------------------------------------

// Kubeconfig files name other files by path: each test writes its own in a scratch folder.
struct TempDir : caldera::testing::ScratchDir {
  TempDir() : ScratchDir("kubeconfig") {}
  std::string write(const std::string& name, const std::string& text) const {
    return ScratchDir::write(name, text).string();
  }
};

TEST(Kubeconfig, CurrentContextTokenAndCaData) {
  TempDir d;
  d.write("client.crt", "CERT");
  d.write("client.key", "KEY");
  std::string f = d.write("config", R"(apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: "https://10.0.0.1:6443/", certificate-authority-data: "UEVNIENB"}
users:
- name: u1
  user: {token: t0k3n, client-certificate: client.crt, client-key: client.key}
contexts:
- name: ctx
  context: {cluster: c1, user: u1, namespace: team}
current-context: ctx
)");
  ClusterAccess a = load_kubeconfig(f);
  EXPECT_EQ(a.server, "https://10.0.0.1:6443");
  EXPECT_EQ(a.ca_pem, "PEM CA");
  EXPECT_EQ(a.token, "t0k3n");
  EXPECT_EQ(a.client_cert_pem, "CERT");  // relative to the kubeconfig
  EXPECT_EQ(a.client_key_pem, "KEY");
  EXPECT_EQ(a.ns, "team");
}

// client-go's TLS rules, and no credential in the clear.
TEST(Kubeconfig, InsecureWithACaAndTokensOverHttpAreRefused) {
  TempDir d;
  std::string both = d.write("both", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://k", insecure-skip-tls-verify: true, certificate-authority-data: "UEVNIENB"}}]
contexts: [{name: x, context: {cluster: c}}]
)");
  EXPECT_EQ(input_error_of([&] { load_kubeconfig(both); }),
            both + ": cluster 'c': insecure-skip-tls-verify together with a certificate "
                   "authority is not allowed (as in client-go): remove one of them");
  std::string plain = d.write("plain", R"(current-context: x
clusters: [{name: c, cluster: {server: "http://k:8080"}}]
users: [{name: u, user: {token: secret}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)");
  EXPECT_EQ(input_error_of([&] { load_kubeconfig(plain); }),
            plain + ": user 'u': a bearer token or password would be sent in the clear to "
                    "http://k:8080; use https");
  // Insecure alone is allowed (and said in the log).
  std::string insecure = d.write("insecure", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://k", insecure-skip-tls-verify: true}}]
contexts: [{name: x, context: {cluster: c}}]
)");
  EXPECT_TRUE(load_kubeconfig(insecure).insecure);
}

// A document nested deeper than kMaxJsonDepth is refused before nlohmann's recursive parser
// sees it; brackets inside strings do not count.
TEST(ServerJson, DeepNestingIsRefusedNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_TRUE(parse_server_json(deep).is_discarded());
  const std::string ok = std::string(100, '[') + std::string(100, ']');
  EXPECT_FALSE(parse_server_json(ok).is_discarded());
  EXPECT_EQ(json_depth(R"({"a": "[[[[", "b": [{"c": "\"]"}]})", 1000), 3u);
  EXPECT_EQ(parse_server_json(R"({"a": "[[[["})")["a"], "[[[[");
}

TEST(Kubeconfig, MergesFilesFirstWins) {
  TempDir d;
  std::string f1 = d.write("a", R"(current-context: two
clusters: [{name: c, cluster: {server: "https://first"}}]
)");
  std::string f2 = d.write("b", R"(current-context: one
clusters: [{name: c, cluster: {server: "https://second"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: two, context: {cluster: c, user: u}}]
)");
  ClusterAccess a = load_kubeconfig(f1 + ":" + f2);
  EXPECT_EQ(a.server, "https://first");
  EXPECT_EQ(a.token, "x");
}

TEST(Kubeconfig, PreciseErrors) {
  TempDir d;
  std::string f = d.write("config", R"(clusters: [{name: c, cluster: {server: "https://s"}}]
users: [{name: u, user: {exec: {command: aws}}}]
contexts: [{name: x, context: {cluster: c, user: u}}, {name: y, context: {cluster: missing}}]
current-context: x
)");
  try {
    load_kubeconfig(f);
    FAIL() << "exec credentials accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("user 'u': exec and auth-provider"), std::string::npos)
        << e.what();
  }
  try {
    load_kubeconfig(f, "y");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("names cluster 'missing'"), std::string::npos) << e.what();
  }
  try {
    load_kubeconfig(f, "nope");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("context 'nope' not found"), std::string::npos);
  }
  std::string bad = d.write("bad", "clusters: [unclosed\n");
  try {
    load_kubeconfig(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ":"), std::string::npos) << e.what();
  }
}

TEST(Kubeconfig, InClusterNeedsTheServiceEnvironment) {
  TempDir d;
  unsetenv("KUBERNETES_SERVICE_HOST");
  EXPECT_THROW(in_cluster_access(d.path()), InputError);
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  d.write("token", "sa-token\n");
  d.write("ca.crt", "CA");
  d.write("namespace", "caldera-system\n");
  ClusterAccess a = in_cluster_access(d.path());
  EXPECT_EQ(a.server, "https://10.96.0.1:443");
  EXPECT_EQ(a.token_file, d.path() / "token");
  EXPECT_EQ(a.ca_pem, "CA");
  EXPECT_EQ(a.ns, "caldera-system");
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
}

// Which credentials win: --kubeconfig, else $KUBECONFIG (several files merged), else the
// pod's service account when KUBERNETES_SERVICE_HOST is set, else ~/.kube/config.
TEST(Kubeconfig, LoadingOrder) {
  TempDir d;
  std::string opt = d.write("opt", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://option"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: k, user: u}}, {name: other, context: {cluster: k2, user: u}}]
)");
  std::string env1 = d.write("env1", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://env"}}]
)");
  std::string env2 = d.write("env2", R"(users: [{name: u, user: {token: from-env2}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)");
  setenv("KUBECONFIG", (env1 + ":" + env2).c_str(), 1);
  unsetenv("KUBERNETES_SERVICE_HOST");
  EXPECT_EQ(resolve_access(opt, "").server, "https://option");
  ClusterAccess env = resolve_access("", "");
  EXPECT_EQ(env.server, "https://env");
  EXPECT_EQ(env.token, "from-env2");  // merged from the second file
  try {
    resolve_access(opt, "other");  // --context: a context the file names, with a missing cluster
    FAIL() << "context 'other' accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("names cluster 'k2'"), std::string::npos) << e.what();
  }
  unsetenv("KUBECONFIG");
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  if (!std::filesystem::exists("/var/run/secrets/kubernetes.io/serviceaccount/token")) {
    try {
      resolve_access("", "");
      FAIL() << "in-cluster access without a service account token";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("in-cluster: "), std::string::npos) << e.what();
    }
  }
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  const char* home = std::getenv("HOME");
  std::string saved = home ? home : "";
  std::filesystem::create_directories(d.path() / ".kube");
  d.write(".kube/config", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://home"}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  setenv("HOME", d.path().c_str(), 1);
  EXPECT_EQ(resolve_access("", "").server, "https://home");
  std::filesystem::remove(d.path() / ".kube" / "config");
  EXPECT_THROW(resolve_access("", ""), InputError);
  setenv("HOME", saved.c_str(), 1);
}

TEST(Kubeconfig, Base64) {
  std::string out;
  EXPECT_TRUE(base64_decode("aGVsbG8=", out));
  EXPECT_EQ(out, "hello");
  EXPECT_TRUE(base64_decode("aGVs\nbG8", out));
  EXPECT_EQ(out, "hello");
  EXPECT_FALSE(base64_decode("a$b", out));
}

// client-go's token bucket: `burst` at once, then `qps` per second, up to `burst`.
TEST(RateLimiter, BurstThenQpsAsClientGo) {
  RateLimiter r(10, 3);
  double wait = -1;
  EXPECT_TRUE(r.take(0, &wait));
  EXPECT_TRUE(r.take(0, &wait));
  EXPECT_TRUE(r.take(0, &wait));
  EXPECT_FALSE(r.take(0, &wait));
  EXPECT_NEAR(wait, 0.1, 1e-9);  // one token per 1/10 s
  EXPECT_FALSE(r.take(0.05, &wait));
  EXPECT_NEAR(wait, 0.05, 1e-9);
  EXPECT_TRUE(r.take(0.1, &wait));
  // A long pause refills to the burst, not beyond.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(r.take(100, &wait));
  EXPECT_FALSE(r.take(100, &wait));
  // Negative qps: no limit; zeros: client-go's defaults (5 per second, burst 10).
  RateLimiter none(-1, 0);
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(none.take(0, &wait));
  RateLimiter defaults(0, 0);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(defaults.take(0, &wait));
  EXPECT_FALSE(defaults.take(0, &wait));
  EXPECT_NEAR(wait, 0.2, 1e-9);
}

}  // namespace
}  // namespace caldera::k8s

namespace caldera::k8s {
namespace {

// Volcano's --node-selector: KEY:VALUE entries, trimmed; anything else refused by name
// (Volcano skips it silently).
TEST(NodeSelectorFlag, PairsAndRefusals) {
  EXPECT_EQ(parse_node_selector({"volcano.sh/role:train", " zone : a "}),
            (std::vector<std::pair<std::string, std::string>>{{"volcano.sh/role", "train"},
                                                              {"zone", "a"}}));
  EXPECT_TRUE(parse_node_selector({}).empty());
  for (const char* bad : {"train", ":train", "role:", "role: "}) {
    try {
      parse_node_selector({"ok:1", bad});
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--node-selector ") + bad +
                                           ": not KEY:VALUE (e.g. volcano.sh/role:train)");
    }
  }
}

}  // namespace
}  // namespace caldera::k8s
