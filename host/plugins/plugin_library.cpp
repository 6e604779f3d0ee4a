// Loading plugin shared objects and finding them in the plugin folders.
//
// Volcano compiles its plugins in and registers them by name (pkg/scheduler/framework/
// plugins.go: RegisterPluginBuilder, and LoadCustomPlugins, which dlopens Go plugins from
// a folder and looks up their "New" symbol). Caldera always loads them from files, through
// the C ABI of caldera/plugin.h, and checks each descriptor before anything else is called.
//
// Why a private copy: dlopen hands back the library it already has for a path or an inode
// it has seen, so a rebuilt file at the same path would never be loaded again. Each load
// copies the file to a unique path in a private folder (mkdtemp, mode 0700) and opens the
// copy. The copy stays on disk while the library is loaded: removing it would free its
// inode number, and a later copy that reused the number would make dlopen return the old
// library. It is removed when the library is unloaded.
#include "host/plugins/plugin_library.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include "host/config/args.hpp"
#include "host/config/config.hpp"
#include "host/session/host_api.hpp"
#include "host/util/sha256.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------
// The private folder of copies: created on first use, removed again whenever it empties,
// so a normal run leaves nothing behind in the temp folder.
// ---------------------------------------------------------------------------------------
class CopyDir {
 public:
  // Writes `bytes` to a new unique file in the private folder and returns its path.
  static fs::path write_copy(const fs::path& original, const std::string& bytes) {
    std::lock_guard<std::mutex> lock(mu());
    fs::path& dir = path();
    if (dir.empty()) {
      remove_stale_dirs();
      // The creator's pid in the folder's name lets a later process tell a folder whose
      // owner was killed (and could not clean up) from one in use.
      std::string tmpl =
          (fs::temp_directory_path() / fmt::format("caldera-plugins-{}-XXXXXX", ::getpid()))
              .string();
      if (!::mkdtemp(tmpl.data()))
        throw InputError(fmt::format("{}: cannot create a private folder for plugin copies in "
                                     "{}: {}",
                                     original.string(), fs::temp_directory_path().string(),
                                     std::strerror(errno)));
      dir = tmpl;
    }
    static std::atomic<uint64_t> counter{0};
    // The process id in the name: a forked child (the reload canary) inherits this folder
    // and the counter, so without it a child's copy and the parent's next one could get the
    // same name; it also lets the parent remove what a child that died left behind.
    fs::path copy = dir / fmt::format("{}-{}-{}", ::getpid(), ++counter,
                                      original.filename().string());
    int fd = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    if (fd < 0)
      throw InputError(fmt::format("{}: cannot create the private copy {}: {}",
                                   original.string(), copy.string(), std::strerror(errno)));
    const char* p = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = errno;
        ::close(fd);
        ::unlink(copy.c_str());
        throw InputError(fmt::format("{}: cannot write the private copy {}: {}",
                                     original.string(), copy.string(), std::strerror(err)));
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    ::close(fd);
    return copy;
  }

  // Removes the copies a process (a finished child) made: "<pid>-*" in the folder.
  static void remove_copies_of(long pid) {
    std::lock_guard<std::mutex> lock(mu());
    fs::path& dir = path();
    if (dir.empty()) return;
    const std::string prefix = fmt::format("{}-", pid);
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().rfind(prefix, 0) == 0) ::unlink(it->path().c_str());
    if (::rmdir(dir.c_str()) == 0) dir.clear();
  }

  // Removes the folders of copies left by processes that were killed (SIGKILL, a crash):
  // "caldera-plugins-<pid>-XXXXXX" of this user whose creator and every copy's process
  // ("<pid>-...") are gone. A pid that is alive again (reused) keeps its folder: this only
  // ever errs on the side of leaving files.
  static void remove_stale_dirs() {
    std::error_code ec;
    fs::path tmp = fs::temp_directory_path(ec);
    if (ec) return;
    auto dead = [](const std::string& pid_text) {
      char* end = nullptr;
      long pid = std::strtol(pid_text.c_str(), &end, 10);
      if (pid_text.empty() || *end != '\0' || pid <= 0) return false;
      return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    };
    const std::string prefix = "caldera-plugins-";
    for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.rfind(prefix, 0) != 0) continue;
      std::string rest = name.substr(prefix.size());
      size_t dash = rest.find('-');
      if (dash == std::string::npos || !dead(rest.substr(0, dash))) continue;
      struct stat st;
      if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid())
        continue;
      bool all_dead = true;
      std::error_code fec;
      for (fs::directory_iterator f(it->path(), fec), fend; !fec && f != fend; f.increment(fec)) {
        std::string fname = f->path().filename().string();
        if (!dead(fname.substr(0, fname.find('-')))) all_dead = false;
      }
      if (fec || !all_dead) continue;
      fs::remove_all(it->path(), fec);
    }
  }

  static void remove_copy(const fs::path& copy) {
    std::lock_guard<std::mutex> lock(mu());
    ::unlink(copy.c_str());
    fs::path& dir = path();
    // rmdir fails while other copies remain; then a later removal retries.
    if (!dir.empty() && copy.parent_path() == dir && ::rmdir(dir.c_str()) == 0) dir.clear();
  }

 private:
  // Leaked on purpose: libraries held by static objects unload during exit, after
  // function-local statics could have been destroyed.
  static std::mutex& mu() {
    static auto* m = new std::mutex;
    return *m;
  }
  static fs::path& path() {
    static auto* p = new fs::path;
    return *p;
  }
};

FileStamp stamp_of(const struct stat& st) {
  FileStamp s;
  s.device = static_cast<uint64_t>(st.st_dev);
  s.inode = static_cast<uint64_t>(st.st_ino);
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return s;
}

std::optional<FileStamp> stat_file(const fs::path& file, std::string* err = nullptr) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) {
    if (err) *err = std::strerror(errno);
    return std::nullopt;
  }
  return stamp_of(st);
}

// Reads the whole file, making sure it did not change while being read (a build that is
// still writing it): the stamp before and after must agree. Retries a few times.
std::string read_settled(const fs::path& file, FileStamp& stamp) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (attempt) std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
    std::string err;
    std::optional<FileStamp> before = stat_file(file, &err);
    if (!before) throw InputError(fmt::format("{}: cannot read: {}", file.string(), err));
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      throw InputError(fmt::format("{}: not a caldera plugin (not a regular file)", file.string()));
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno)));
    std::ostringstream ss;
    ss << in.rdbuf();
    std::optional<FileStamp> after = stat_file(file);
    std::string bytes = ss.str();
    if (after && *after == *before && bytes.size() == before->size) {
      stamp = *after;
      return bytes;
    }
  }
  throw InputError(fmt::format("{}: the file kept changing while it was read; it is probably "
                               "still being written",
                               file.string()));
}

// dlopen trusts the ELF headers: a truncated file whose segments reach past its end is
// mapped anyway and the first touch of the missing pages kills the process with SIGBUS
// (glibc does not compare segment ends with the file size). So the host checks the
// headers first and refuses such a file with a reason. Returns "" when the file looks
// like a complete shared object of this machine's class.
std::string elf_problem(const std::string& b) {
  using Ehdr = ElfW(Ehdr);
  using Phdr = ElfW(Phdr);
  if (b.size() < EI_NIDENT || std::memcmp(b.data(), ELFMAG, SELFMAG) != 0)
    return "not an ELF file";
  const int want_class = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
  if (static_cast<unsigned char>(b[EI_CLASS]) != want_class)
    return fmt::format("a {}-bit ELF file, but this host is {}-bit",
                       b[EI_CLASS] == ELFCLASS64 ? 64 : 32, sizeof(void*) * 8);
  if (b.size() < sizeof(Ehdr))
    return fmt::format("file is truncated: {} bytes, less than an ELF header", b.size());
  Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  if (eh.e_type != ET_DYN) return "an ELF file, but not a shared object";
  const uint64_t size = b.size();
  if (eh.e_phentsize != sizeof(Phdr) || eh.e_phnum == 0)
    return "malformed ELF program headers";
  if (eh.e_phoff > size || uint64_t(eh.e_phnum) * sizeof(Phdr) > size - eh.e_phoff)
    return fmt::format("file is truncated: its program headers end past its {} bytes", size);
  for (int i = 0; i < eh.e_phnum; ++i) {
    Phdr ph;
    std::memcpy(&ph, b.data() + eh.e_phoff + i * sizeof(Phdr), sizeof ph);
    if (ph.p_type != PT_LOAD && ph.p_type != PT_DYNAMIC) continue;
    if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
      return fmt::format("file is truncated: segment {} ends at byte {}, the file has {}", i,
                         uint64_t(ph.p_offset) + ph.p_filesz, size);
  }
  if (eh.e_shnum > 0 &&
      (eh.e_shoff > size || uint64_t(eh.e_shnum) * eh.e_shentsize > size - eh.e_shoff))
    return fmt::format("file is truncated: its section headers end past its {} bytes", size);
  return "";
}

std::string version_str(uint32_t v) {
  return fmt::format("{}.{}", CAL_ABI_MAJOR_OF(v), CAL_ABI_MINOR_OF(v));
}

bool valid_plugin_name(std::string_view n) {
  if (n.empty() || n.size() > 128) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

// Copies the plugin's option table into host memory (the strings stay in the .so). The
// entries are read with the plugin's own cal_option size as stride, so a table built by a
// later minor with a larger cal_option is read correctly.
std::vector<cal_option> read_options(const fs::path& file, const std::string& name,
                                     const cal_plugin* d) {
  std::vector<cal_option> out;
  if (d->option_count == 0) return out;
  auto bad = [&](const std::string& why) {
    return InputError(fmt::format("{}: plugin '{}' has a malformed option table: {}",
                                  file.string(), name, why));
  };
  if (!d->options) throw bad(fmt::format("option_count is {} but options is NULL", d->option_count));
  if (d->option_count > 4096) throw bad(fmt::format("option_count is {}", d->option_count));
  uint32_t stride = d->options[0].struct_size;
  if (stride < sizeof(cal_option) || stride > 4096)
    throw bad(fmt::format("cal_option.struct_size is {}, expected at least {}", stride,
                          sizeof(cal_option)));
  const auto* base = reinterpret_cast<const unsigned char*>(d->options);
  std::set<std::string> seen;
  for (size_t i = 0; i < d->option_count; ++i) {
    cal_option o;
    std::memcpy(&o, base + i * stride, sizeof o);
    if (o.struct_size != stride)
      throw bad(fmt::format("entry {} has struct_size {}, entry 0 has {}", i, o.struct_size, stride));
    if (!o.name || !*o.name) throw bad(fmt::format("entry {} has no name", i));
    std::string oname = o.name;
    if (static_cast<int>(o.type) < CAL_OPT_BOOL || static_cast<int>(o.type) > CAL_OPT_DURATION)
      throw bad(fmt::format("option '{}' has unknown type {}", oname, static_cast<int>(o.type)));
    if (!seen.insert(oname).second) throw bad(fmt::format("option '{}' is declared twice", oname));
    bool family = oname.size() >= 2 && oname.compare(oname.size() - 2, 2, ".*") == 0;
    if (family && o.default_value)
      throw bad(fmt::format("option family '{}' declares a default; families have none", oname));
    if (!o.description) o.description = "";
    o.struct_size = sizeof(cal_option);
    out.push_back(o);
  }
  // Defaults must parse as their type: validating no arguments fills every default.
  try {
    (void)Args::validate(fmt::format("plugin '{}'", name), out, {});
  } catch (const InputError& e) {
    throw bad(e.what());
  }
  return out;
}

}  // namespace

namespace {
std::atomic<bool> g_unload_on_release{true};

// Copies of libraries kept loaded (unload_on_release false): removed when the process
// exits, when no code of theirs can run any more.
std::vector<fs::path>& kept_copies() {
  static auto* v = new std::vector<fs::path>;  // leaked: used from an atexit handler
  return *v;
}
std::mutex& kept_mu() {
  static auto* m = new std::mutex;
  return *m;
}
void remove_kept_copies() {
  std::lock_guard<std::mutex> lock(kept_mu());
  for (const fs::path& p : kept_copies()) CopyDir::remove_copy(p);
  kept_copies().clear();
}
}  // namespace

struct PluginLibrary::Impl {
  boost::dll::shared_library lib;
  fs::path copy;
  ~Impl() {
    if (!g_unload_on_release.load() && lib.is_loaded()) {
      // Keep the code mapped: one more reference (RTLD_NOLOAD opens nothing new) that is
      // never dropped, so Boost's dlclose below leaves the library in place. The copy stays
      // on disk too, so that its inode number is not reused while the library is mapped.
      if (::dlopen(copy.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
        lib.unload();
        std::lock_guard<std::mutex> lock(kept_mu());
        if (kept_copies().empty()) std::atexit(remove_kept_copies);
        kept_copies().push_back(copy);
        return;
      }
    }
    lib.unload();
    if (!copy.empty()) CopyDir::remove_copy(copy);
  }
};

void PluginLibrary::set_unload_on_release(bool unload) { g_unload_on_release.store(unload); }

void PluginLibrary::remove_private_copies_of(long pid) { CopyDir::remove_copies_of(pid); }

PluginLibrary::~PluginLibrary() = default;

std::shared_ptr<PluginLibrary> PluginLibrary::load(const fs::path& file) {
  const std::string f = file.string();
  FileStamp stamp;
  std::string bytes = read_settled(file, stamp);

  if (std::string why = elf_problem(bytes); !why.empty())
    throw InputError(fmt::format("{}: not a caldera plugin (cannot load it as a shared object: "
                                 "{})",
                                 f, why));

  std::shared_ptr<PluginLibrary> pl(new PluginLibrary());
  pl->impl_ = std::make_unique<Impl>();
  pl->impl_->copy = CopyDir::write_copy(file, bytes);
  const fs::path& copy = pl->impl_->copy;

  // RTLD_NOW: a plugin that needs a symbol nobody provides fails here, not in the middle
  // of a session. RTLD_LOCAL: one plugin's symbols never satisfy another's.
  boost::dll::fs::error_code ec;
  pl->impl_->lib.load(boost::dll::fs::path(copy.string()), ec,
                      boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec || !pl->impl_->lib.is_loaded()) {
    // Boost.DLL keeps only an errno-like code; open once more to read dlerror()'s reason.
    std::string reason = ec.message();
    if (void* h = ::dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      ::dlclose(h);
    } else if (const char* e = ::dlerror()) {
      reason = e;
      // Name the user's file, not the private copy.
      for (size_t pos; (pos = reason.find(copy.string())) != std::string::npos;)
        reason.replace(pos, copy.string().size(), f);
      if (reason.rfind(f + ": ", 0) == 0) reason = reason.substr(f.size() + 2);
    }
    throw InputError(fmt::format("{}: not a caldera plugin (cannot load it as a shared object: "
                                 "{})",
                                 f, reason));
  }
  if (!pl->impl_->lib.has(CAL_ENTRY_SYMBOL))
    throw InputError(fmt::format("{}: not a caldera plugin (no symbol {})", f, CAL_ENTRY_SYMBOL));

  auto entry = pl->impl_->lib.get<const cal_plugin*(const cal_host_api*, uint32_t)>(
      CAL_ENTRY_SYMBOL);
  const cal_plugin* d = nullptr;
  try {
    d = entry(host_api(), CAL_ABI_VERSION);
  } catch (...) {
    // A C++ plugin must not throw across the ABI; if one does, refuse it rather than die.
    throw InputError(fmt::format("{}: the plugin's entry point threw an exception", f));
  }
  if (!d)
    throw InputError(fmt::format("{}: the plugin refused to load (its entry point returned NULL)", f));

  const uint32_t abi = d->abi_version;
  if (CAL_ABI_MAJOR_OF(abi) != CAL_ABI_MAJOR) {
    // Another major may lay the descriptor out differently: name the plugin by its file.
    throw InputError(fmt::format(
        "{}: plugin '{}' was built for ABI {} but this host speaks {}: rebuild it against "
        "caldera-sdk {}.x",
        f, file.stem().string(), version_str(abi), version_str(CAL_ABI_VERSION), CAL_ABI_MAJOR));
  }
  if (d->struct_size < CAL_PLUGIN_V1_0_SIZE)
    throw InputError(fmt::format(
        "{}: the plugin descriptor is {} bytes, less than the {} of ABI {}.0: it was not built "
        "from caldera/plugin.h",
        f, d->struct_size, CAL_PLUGIN_V1_0_SIZE, CAL_ABI_MAJOR));
  std::string name = d->name ? d->name : "";
  if (CAL_ABI_MINOR_OF(abi) > CAL_ABI_MINOR)
    throw InputError(fmt::format(
        "{}: plugin '{}' was built for ABI {} but this host speaks {}: rebuild it against "
        "caldera-sdk {} (or upgrade caldera to a release that speaks ABI {})",
        f, name.empty() ? file.stem().string() : name, version_str(abi),
        version_str(CAL_ABI_VERSION), version_str(CAL_ABI_VERSION), version_str(abi)));
  if (!valid_plugin_name(name))
    throw InputError(fmt::format("{}: the plugin's name '{}' is empty or not made of letters, "
                                 "digits, '-', '_' and '.'",
                                 f, name));

  // Reserved words: every word of cal_plugin.reserved[] (the room no minor up to this
  // host's defines) that lies inside the descriptor must be zero. A non-zero one means the
  // descriptor was not built from this header for the minor it is stamped with, or was
  // not zeroed; the host cannot tell what it is meant to be, so it refuses the plugin.
  const size_t known = std::min<size_t>(d->struct_size, sizeof(cal_plugin));
  constexpr size_t kReservedAt = offsetof(cal_plugin, reserved);
  for (size_t off = kReservedAt; off + sizeof(void*) <= known; off += sizeof(void*)) {
    void* word = nullptr;
    std::memcpy(&word, reinterpret_cast<const unsigned char*>(d) + off, sizeof word);
    if (word)
      throw InputError(fmt::format(
          "{}: plugin '{}' (ABI {}) has reserved word {} of its descriptor set "
          "(cal_plugin.reserved[{}], byte {} of {}); reserved words must be zero: rebuild it "
          "against caldera-sdk {} from an unmodified caldera/plugin.h, with the descriptor "
          "zeroed (memset or = {{0}}) and no slot newer than ABI {}",
          f, name, version_str(abi), (off - kReservedAt) / sizeof(void*),
          (off - kReservedAt) / sizeof(void*), off, d->struct_size,
          version_str(CAL_ABI_VERSION), version_str(abi)));
  }

  // The host's own copy of the descriptor, holding only what the plugin's minor defines
  // and its struct_size covers (CAL_PLUGIN_COVERED): a plugin stamped 1.0 has its 1.1
  // slots ignored even when its struct_size reaches them (they were reserved words in
  // 1.0, which the 1.0 host never read). Every later read of the descriptor, by the
  // loader, the policy and the session, reads this copy.
  const size_t covered = CAL_PLUGIN_COVERED(d);
  std::memset(&pl->desc_, 0, sizeof pl->desc_);
  std::memcpy(&pl->desc_, d, covered);
  pl->desc_.struct_size = static_cast<uint32_t>(covered);
  d = &pl->desc_;
  if (!d->open || !d->close)
    throw InputError(fmt::format(
        "{}: plugin '{}' has no {} function: a descriptor must set both open and close "
        "(caldera/plugin.h); rebuild it with them",
        f, name, !d->open && !d->close ? "open or close" : !d->open ? "open" : "close"));

  PluginInfo& info = pl->info_;
  info.name = name;
  info.version = d->version ? d->version : "";
  info.description = d->description ? d->description : "";
  info.abi_version = abi;
  info.file = file;
  info.stamp = stamp;
  info.sha256 = sha256_hex(bytes);
  info.implemented = implemented_points(d);  // host/config/points.hpp, from the point table
  info.options = read_options(file, name, d);
  return pl;
}

std::string trust_problem(const fs::path& p) {
  // sshd's StrictModes, for code the scheduler will run: the file (or folder), and what a
  // link points to, must belong to root or to this user and be writable by its owner only.
  auto check = [](const fs::path& at, const struct stat& st) -> std::string {
    const uid_t me = ::geteuid();
    if (st.st_uid != 0 && st.st_uid != me)
      return fmt::format("{} belongs to user {}, not to root or to this user ({})", at.string(),
                         st.st_uid, me);
    if (st.st_mode & (S_IWGRP | S_IWOTH))
      return fmt::format("{} is writable by {} (mode {:04o}); plugins and their folders must be "
                         "writable by their owner only",
                         at.string(), (st.st_mode & S_IWOTH) ? "others" : "its group",
                         st.st_mode & 07777);
    return "";
  };
  struct stat st;
  if (::lstat(p.c_str(), &st) != 0) return "";  // gone: the load says so
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path target = fs::canonical(p, ec);
    if (ec) return "";
    if (::stat(target.c_str(), &st) != 0) return "";
    if (std::string why = check(target, st); !why.empty()) return "its link target " + why;
    struct stat parent;
    if (::stat(target.parent_path().c_str(), &parent) == 0)
      if (std::string why = check(target.parent_path(), parent); !why.empty())
        return "its link target's folder " + why;
    return "";
  }
  return check(p, st);
}

PluginCatalog PluginCatalog::scan(const std::vector<fs::path>& dirs, const PluginCatalog* previous) {
  PluginCatalog cat;
  std::map<std::string, fs::path> owner;  // plugin name -> file that declares it
  std::set<fs::path> scanned;
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    if (!fs::exists(dir, ec))
      throw InputError(fmt::format("{}: plugin folder does not exist", dir.string()));
    if (!fs::is_directory(dir, ec))
      throw InputError(fmt::format("{}: plugin folder is not a folder", dir.string()));
    if (std::string why = trust_problem(dir); !why.empty())
      throw InputError(fmt::format("{}: plugin folder refused: {}", dir.string(), why));
    // The same folder named twice (or through a link) is scanned once.
    fs::path canon = fs::weakly_canonical(dir, ec);
    if (!scanned.insert(ec ? dir : canon).second) continue;

    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() != ".so") continue;
      std::error_code fec;
      if (!fs::is_regular_file(p, fec)) continue;  // follows links; skips folders
      files.push_back(p);
    }
    if (ec)
      throw InputError(fmt::format("{}: cannot list the plugin folder: {}", dir.string(),
                                   ec.message()));
    // Sorted, so the load order and every message are the same on every run.
    std::sort(files.begin(), files.end());

    for (const fs::path& file : files) {
      std::shared_ptr<const PluginLibrary> lib;
      if (previous) {
        std::optional<FileStamp> now = stat_file(file);
        for (const auto& old : previous->plugins_)
          if (now && old->info().file == file && old->info().stamp == *now) lib = old;
      }
      if (std::string why = trust_problem(file); !why.empty()) {
        cat.failures_.push_back(Failure{file, fmt::format("{}: refused: {}", file.string(), why)});
        continue;
      }
      if (!lib) {
        try {
          lib = PluginLibrary::load(file);
        } catch (const InputError& e) {
          cat.failures_.push_back(Failure{file, e.what()});
          continue;
        }
      }
      auto [it, fresh] = owner.emplace(lib->info().name, file);
      if (!fresh)
        throw InputError(fmt::format("plugin '{}' is provided by two files, {} and {}: remove "
                                     "one of them",
                                     lib->info().name, it->second.string(), file.string()));
      cat.plugins_.push_back(std::move(lib));
    }
  }
  std::sort(cat.plugins_.begin(), cat.plugins_.end(),
            [](const auto& a, const auto& b) { return a->info().name < b->info().name; });
  return cat;
}

std::shared_ptr<const PluginLibrary> PluginCatalog::find(const std::string& name) const {
  auto it = std::lower_bound(plugins_.begin(), plugins_.end(), name,
                             [](const auto& lib, const std::string& n) { return lib->info().name < n; });
  if (it != plugins_.end() && (*it)->info().name == name) return *it;
  return nullptr;
}

}  // namespace caldera
