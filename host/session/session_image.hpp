// Incremental sessions (issue 17): a session's snapshot kept between sessions and brought
// up to date with what changed in the cache, so that opening a session costs what changed
// since the last one, not the cluster.
//
// The supervisor keeps the image and refreshes it before each session: the pods, PodGroups
// and nodes the cache lists as changed (Cache::take_changes) are taken out of the image and
// put back as they are now, with the functions the full build uses (snapshot.cpp); then the
// jobs and nodes they touched get their order, counts and sums made again from their
// members. The session's worker, forked just after, opens the session on its copy of the
// image in place (Session::open(built, ...)): the fork copies nothing up front, and what the
// session changes it changes in its own pages, never in the supervisor's image.
//
// Exactness: an image brought up to date is the build from scratch of the same cache: the
// same objects in the same order, the same sums to the bit (a node's and a job's sums are
// made again from its members in the build's order, not adjusted). The unit tests compare
// the two after random changes; with CALDERA_CHECK_IMAGE=1 in the environment every refresh
// compares them and aborts on a difference (the test suites set it).
//
// What it does not follow object by object, it builds anew: a node added, removed or with
// other allocatable resources, readiness or pod count; any queue, priority class or storage
// object; a resource name that comes into use or goes out of it; pods with volume claims
// (their CSI counts depend on storage); a PodGroup and a pod of its own with one key; a
// policy other than the last one.
#pragma once

#include <memory>
#include <string>

#include "host/session/session.hpp"

namespace caldera {

class Cache;

class SessionImage {
 public:
  SessionImage();
  ~SessionImage();
  SessionImage(const SessionImage&) = delete;
  SessionImage& operator=(const SessionImage&) = delete;

  struct Refresh {
    bool built = false;  // built from scratch (else brought up to date)
    std::string why;     // why it was built from scratch
    size_t pods = 0, podgroups = 0, nodes = 0;  // changes followed
    double seconds = 0;
  };
  // Brings the image up to date with `cache` for `policy`. The image takes the cache's
  // changes for itself (one image per cache: another taker makes the next refresh a build).
  Refresh refresh(const Cache& cache, const std::shared_ptr<const Policy>& policy);

  // Opens a session on the image in place (Session::open(built, ...)): the session takes
  // the image's objects and the next refresh builds anew. Meant for a forked worker, whose
  // copy of the image nobody else reads; refresh first.
  std::unique_ptr<Session> open(const Cache& cache, double now, Runtime& runtime);
  bool ready() const { return built_ != nullptr; }
  // True in a process forked after the last refresh: the session opened there may be left
  // to the process's exit instead of freed object by object (freeing would copy on write
  // every page of the image it touches).
  bool in_fork() const;

  // Every object of a snapshot as text, one line each, numbers to the bit: for comparing
  // an image with a build from scratch.
  static std::string describe(const Session& s);

 private:
  std::unique_ptr<Session> built_;
  long owner_pid_ = 0;
};

}  // namespace caldera
