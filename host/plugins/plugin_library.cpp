// Plugin files: read and sealed in the host, inspected in a child, loaded where sessions run.
//
// Volcano compiles its plugins in and registers them by name (pkg/scheduler/framework/
// plugins.go: RegisterPluginBuilder, and LoadCustomPlugins, which dlopens Go plugins from
// a folder and looks up their "New" symbol). Caldera always loads them from files, through
// the C ABI of caldera/plugin.h, and checks each descriptor before anything else is called.
//
// Why a memfd: the bytes that were read, checked and inspected are the bytes every later
// load maps (sealed against writes and resizing: nothing can change them), whatever becomes
// of the file on disk; and each memfd is its own inode, so dlopen never hands back an older
// build it has seen under the same path or inode.
#include "host/plugins/plugin_library.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include "caldera/option_family.hpp"
#include "host/config/args.hpp"
#include "host/config/config.hpp"
#include "host/session/host_api.hpp"
#include "host/util/child_run.hpp"
#include "host/util/fd_io.hpp"
#include "host/util/sha256.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

FileStamp stamp_of(const struct stat& st) {
  FileStamp s;
  s.device = static_cast<uint64_t>(st.st_dev);
  s.inode = static_cast<uint64_t>(st.st_ino);
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return s;
}


// Reads the whole file, making sure it did not change while being read (a build that is
// still writing it): the stamp before and after must agree. Retries a few times.
std::string read_settled(const fs::path& file, FileStamp& stamp) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (attempt) std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
    std::string err;
    std::optional<FileStamp> before = file_stamp(file, &err);
    if (!before) throw InputError(fmt::format("{}: cannot read: {}", file.string(), err));
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      throw InputError(fmt::format("{}: not a caldera plugin (not a regular file)", file.string()));
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno)));
    std::ostringstream ss;
    ss << in.rdbuf();
    std::optional<FileStamp> after = file_stamp(file);
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
    const bool family = option_family::is_family(oname);
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


// Loads the shared object at `at` (a memfd's /proc/self/fd path) into this process, calls
// its entry with the host table, and checks the descriptor: ABI major equal, minor not newer
// than the host's, struct size, name present, every reserved word inside struct_size zero,
// open and close set, options well formed. `desc` receives the host's copy of the
// descriptor, with only the slots the plugin's minor defines. Returns what the descriptor
// declares (its option strings still in the library). Throws InputError naming `file` (the
// user's file), both versions and what to rebuild on a mismatch; "not a caldera plugin"
// when the entry symbol is missing or the bytes do not load as a shared object.
PluginInfo open_code(const std::string& at, const fs::path& file, boost::dll::shared_library& lib,
                     cal_plugin& desc) {
  const std::string f = file.string();
  PluginInfo info;
  // RTLD_NOW: a plugin that needs a symbol nobody provides fails here, not in the middle
  // of a session. RTLD_LOCAL: one plugin's symbols never satisfy another's.
  boost::dll::fs::error_code ec;
  lib.load(boost::dll::fs::path(at), ec,
                      boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec || !lib.is_loaded()) {
    // Boost.DLL keeps only an errno-like code; open once more to read dlerror()'s reason.
    std::string reason = ec.message();
    if (void* h = ::dlopen(at.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      ::dlclose(h);
    } else if (const char* e = ::dlerror()) {
      reason = e;
      // Name the user's file, not the memfd's path.
      for (size_t pos; (pos = reason.find(at)) != std::string::npos;)
        reason.replace(pos, at.size(), f);
      if (reason.rfind(f + ": ", 0) == 0) reason = reason.substr(f.size() + 2);
    }
    throw InputError(fmt::format("{}: not a caldera plugin (cannot load it as a shared object: "
                                 "{})",
                                 f, reason));
  }
  if (!lib.has(CAL_ENTRY_SYMBOL))
    throw InputError(fmt::format("{}: not a caldera plugin (no symbol {})", f, CAL_ENTRY_SYMBOL));

  auto entry = lib.get<const cal_plugin*(const cal_host_api*, uint32_t)>(
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
  std::memset(&desc, 0, sizeof desc);
  std::memcpy(&desc, d, covered);
  desc.struct_size = static_cast<uint32_t>(covered);
  d = &desc;
  if (!d->open || !d->close)
    throw InputError(fmt::format(
        "{}: plugin '{}' has no {} function: a descriptor must set both open and close "
        "(caldera/plugin.h); rebuild it with them",
        f, name, !d->open && !d->close ? "open or close" : !d->open ? "open" : "close"));

  info.name = name;
  info.version = d->version ? d->version : "";
  info.description = d->description ? d->description : "";
  info.abi_version = abi;
  info.file = file;
  info.implemented = implemented_points(d);  // host/config/points.hpp, from the point table
  info.options = read_options(file, name, d);
  info.capabilities = d->capabilities;
  info.checks_args = d->check_args != nullptr;
  return info;
}


std::string memfd_path(int fd) { return fmt::format("/proc/self/fd/{}", fd); }

// Seals `fd` against any change. F_SEAL_WRITE waits for the kernel's transient references to
// the pages just written (LRU batches, migration) and gives up with EBUSY when they outlive
// its short wait, which happens on a loaded machine. So it is retried, and if the pages stay
// busy, F_SEAL_FUTURE_WRITE is used instead: it refuses every later write() and writable
// mapping, and since this process never mapped the memfd writable, it promises the same.
bool seal_bytes(int fd) {
  constexpr int kFixed = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (::fcntl(fd, F_ADD_SEALS, kFixed | F_SEAL_WRITE) == 0) return true;
    if (errno != EBUSY) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return ::fcntl(fd, F_ADD_SEALS, kFixed | F_SEAL_FUTURE_WRITE) == 0;
}

// A sealed memfd holding `bytes`: no write, no resize, no more seals.
int sealed_memfd(const fs::path& file, const std::string& bytes) {
  const std::string name = "caldera-plugin:" + file.filename().string();
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    throw InputError(fmt::format("{}: cannot hold the plugin's bytes (memfd_create: {})",
                                 file.string(), std::strerror(errno)));
  if (!write_all(fd, bytes) || !seal_bytes(fd)) {
    const int err = errno;
    ::close(fd);
    throw InputError(fmt::format("{}: cannot hold the plugin's bytes (memfd: {})", file.string(),
                                 std::strerror(err)));
  }
  return fd;
}

// ---- the inspection's report: one record per line, fields split by tabs ----------------

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string unesc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char n = s[++i];
    out += n == 't' ? '\t' : n == 'n' ? '\n' : n;
  }
  return out;
}

std::vector<std::string> fields(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    out.push_back(unesc(line.substr(start, tab == std::string_view::npos ? line.npos : tab - start)));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return out;
}

std::string points_bits(const PointSet& p) {
  std::string out;
  for (int i = 0; i < kPointCount; ++i) out += p.has(static_cast<Point>(i)) ? '1' : '0';
  return out;
}

// The child's side: loads each file's memfd, reports what its descriptor declares.
//   file I                         (before loading file I: a crash after it is file I's)
//   info I  name version description abi points capabilities checks_args
//   option I  name type has_default default description     (one per option)
//   done I  | error I  text
int inspect_child(int out, const std::vector<std::pair<fs::path, int>>& files, size_t from) {
  // Every library stays loaded: the child _exits, and a plugin's destructors are not what
  // is being inspected (unload_retired_plugins = false exists for those that cannot be
  // unloaded).
  auto* kept = new std::vector<boost::dll::shared_library>();
  for (size_t i = from; i < files.size(); ++i) {
    const auto& [file, fd] = files[i];
    if (!write_all(out, fmt::format("file {}\n", i))) return 1;
    std::string rec;
    try {
      kept->emplace_back();
      cal_plugin desc{};
      const PluginInfo info = open_code(memfd_path(fd), file, kept->back(), desc);
      rec = fmt::format("info {}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", i, esc(info.name),
                        esc(info.version), esc(info.description), info.abi_version,
                        points_bits(info.implemented), info.capabilities,
                        info.checks_args ? 1 : 0);
      for (const cal_option& o : info.options)
        rec += fmt::format("option {}\t{}\t{}\t{}\t{}\t{}\n", i, esc(o.name),
                           static_cast<int>(o.type), o.default_value ? 1 : 0,
                           esc(o.default_value ? o.default_value : ""), esc(o.description));
      rec += fmt::format("done {}\n", i);
    } catch (const InputError& e) {
      rec = fmt::format("error {}\t{}\n", i, esc(e.what()));
    }
    if (!write_all(out, rec)) return 1;
  }
  return 0;
}

// How long a child may spend in one file's constructors and entry point (at least).
constexpr double kInspectSeconds = 10;

struct Inspected {
  std::optional<PluginInfo> info;
  std::string error;
};

// Inspects `files` (path, memfd) in children: one child for the lot, and after a child
// that died or hung, a new one from the file after the one it was on (that file fails
// with the child's ending). Runs no plugin code in this process.
std::vector<Inspected> inspect(const std::vector<std::pair<fs::path, int>>& files) {
  std::vector<Inspected> out(files.size());
  std::vector<std::shared_ptr<std::vector<std::string>>> text(files.size());
  size_t from = 0;
  while (from < files.size()) {
    // A file's constructors and entry point take milliseconds: the limit is generous for
    // a slow machine without letting one hung file stall the scan for long.
    ChildRun run = run_in_child([&](int fd) { return inspect_child(fd, files, from); },
                                kInspectSeconds + 1.0 * static_cast<double>(files.size() - from));
    if (run.how == ChildRun::How::ForkFailed) {
      for (size_t i = from; i < files.size(); ++i)
        out[i].error = fmt::format("{}: cannot inspect the plugin: {}", files[i].first.string(),
                                   run.ending());
      break;
    }
    std::istringstream in(run.output);
    size_t on = from;       // the file the child reported last
    bool finished = false;  // ... and whether its record was complete
    for (std::string line; std::getline(in, line);) {
      if (in.eof()) break;  // a line without its newline: the child died writing it
      const size_t sp = line.find(' ');
      if (sp == std::string::npos) continue;
      const std::string kind = line.substr(0, sp);
      const std::vector<std::string> f = fields(std::string_view(line).substr(sp + 1));
      const size_t i = std::strtoull(f[0].c_str(), nullptr, 10);
      if (i < from || i >= files.size()) continue;
      if (kind == "file") {
        on = i;
        finished = false;
      } else if (kind == "error" && f.size() == 2) {
        out[i].error = f[1];
        finished = true;
      } else if (kind == "info" && f.size() == 8) {
        PluginInfo info;
        info.name = f[1];
        info.version = f[2];
        info.description = f[3];
        info.abi_version = static_cast<uint32_t>(std::strtoul(f[4].c_str(), nullptr, 10));
        for (int p = 0; p < kPointCount && p < static_cast<int>(f[5].size()); ++p)
          if (f[5][p] == '1') info.implemented.add(static_cast<Point>(p));
        info.capabilities = std::strtoull(f[6].c_str(), nullptr, 10);
        info.checks_args = f[7] == "1";
        out[i].info = std::move(info);
        text[i] = std::make_shared<std::vector<std::string>>();
      } else if (kind == "option" && f.size() == 6 && out[i].info) {
        text[i]->insert(text[i]->end(), {f[1], f[4], f[5]});
        cal_option o{};
        o.struct_size = sizeof o;
        o.type = static_cast<cal_option_type>(std::atoi(f[2].c_str()));
        o.default_value = f[3] == "1" ? "" : nullptr;  // pointed at its text below
        out[i].info->options.push_back(o);
      } else if (kind == "done" && out[i].info) {
        // The strings no longer move: point the options at them.
        PluginInfo& info = *out[i].info;
        const std::vector<std::string>& t = *text[i];
        for (size_t k = 0; k < info.options.size(); ++k) {
          info.options[k].name = t[3 * k].c_str();
          if (info.options[k].default_value) info.options[k].default_value = t[3 * k + 1].c_str();
          info.options[k].description = t[3 * k + 2].c_str();
        }
        info.option_text = text[i];
        finished = true;
      }
    }
    if (!finished) {
      // The child ended while on this file: its constructors or entry point did it.
      out[on].info.reset();
      out[on].error = fmt::format(
          "{}: not a caldera plugin (loading it {}, in its constructors or entry point)",
          files[on].first.string(),
          run.how == ChildRun::How::TimedOut
              ? std::string("did not finish in time")
          : run.how == ChildRun::How::Signaled ? "crashed with " + run.ending()
                                               : "ended the process: " + run.ending());
    }
    from = on + 1;
  }
  return out;
}

std::atomic<bool> g_unload_on_release{true};

}  // namespace

// ---------------------------------------------------------------------------------------
// PluginFile
// ---------------------------------------------------------------------------------------

struct PluginFile::Code {
  boost::dll::shared_library lib;
  cal_plugin desc{};
  std::string error;  // why it could not be loaded here ("" when it was)
};

PluginFile::~PluginFile() {
  // dlopen knows a library by the name it was opened with ("/proc/self/fd/N") before it
  // looks at the file: while a library of that name stays loaded, fd N must not be reused
  // for other bytes, in this process or a child that inherits both. So the memfd stays open
  // as long as its code stays mapped: kept on purpose (unload_retired_plugins = false), or
  // because dlclose left it (a library marked NODELETE, as C++ code with unique symbols is).
  bool still_mapped = false;
  if (code_ && code_->lib.is_loaded()) {
    const std::string at = memfd_path(fd_);
    if (!g_unload_on_release.load()) {
      // One more reference (RTLD_NOLOAD opens nothing new) that is never dropped.
      still_mapped = ::dlopen(at.c_str(), RTLD_NOW | RTLD_NOLOAD) != nullptr;
    }
    code_.reset();
    if (!still_mapped) {
      if (void* h = ::dlopen(at.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
        ::dlclose(h);
        still_mapped = true;
      }
    }
  }
  code_.reset();
  if (fd_ >= 0 && !still_mapped) ::close(fd_);
}

std::shared_ptr<PluginFile> PluginFile::open_bytes(const fs::path& file) {
  FileStamp stamp;
  const std::string bytes = read_settled(file, stamp);
  if (std::string why = elf_problem(bytes); !why.empty())
    throw InputError(fmt::format("{}: not a caldera plugin (cannot load it as a shared object: "
                                 "{})",
                                 file.string(), why));
  std::shared_ptr<PluginFile> f(new PluginFile());
  f->fd_ = sealed_memfd(file, bytes);
  f->info_.file = file;
  f->info_.stamp = stamp;
  f->info_.sha256 = sha256_hex(bytes);
  return f;
}

void PluginFile::inspect_all(const std::vector<PluginFile*>& files,
                             std::vector<std::string>& errors) {
  std::vector<std::pair<fs::path, int>> batch;
  for (PluginFile* f : files) batch.emplace_back(f->info_.file, f->fd_);
  std::vector<Inspected> got = inspect(batch);
  errors.assign(files.size(), "");
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i].info) {
      errors[i] = got[i].error.empty()
                      ? fmt::format("{}: not a caldera plugin (its inspection said nothing)",
                                    files[i]->info_.file.string())
                      : got[i].error;
      continue;
    }
    PluginInfo& info = *got[i].info;
    info.file = files[i]->info_.file;
    info.stamp = files[i]->info_.stamp;
    info.sha256 = files[i]->info_.sha256;
    files[i]->info_ = std::move(info);
  }
}

std::shared_ptr<const PluginFile> PluginFile::read(const fs::path& file) {
  std::shared_ptr<PluginFile> f = open_bytes(file);
  std::vector<std::string> errors;
  inspect_all({f.get()}, errors);
  if (!errors[0].empty()) throw InputError(errors[0]);
  return f;
}

void PluginFile::set_unload_on_release(bool unload) { g_unload_on_release.store(unload); }

bool PluginFile::loaded_here() const { return code_ && code_->error.empty(); }

const cal_plugin* PluginFile::descriptor() const {
  std::call_once(once_, [this] {
    auto c = std::make_unique<Code>();
    try {
      const PluginInfo got = open_code(memfd_path(fd_), info_.file, c->lib, c->desc);
      if (got.name != info_.name || got.abi_version != info_.abi_version ||
          !(got.implemented == info_.implemented))
        c->error = fmt::format("it now declares '{}' ABI {}, not what it declared when inspected",
                               got.name, version_str(got.abi_version));
    } catch (const InputError& e) {
      c->error = e.what();
    }
    code_ = std::move(c);
  });
  if (!code_->error.empty())
    throw std::runtime_error(fmt::format("plugin {}: its code cannot be loaded here: {}",
                                         info_.name, code_->error));
  return &code_->desc;
}

std::optional<FileStamp> file_stamp(const fs::path& file, std::string* err) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) {
    if (err) *err = std::strerror(errno);
    return std::nullopt;
  }
  return stamp_of(st);
}

std::vector<fs::path> plugin_files_in(const fs::path& dir, std::error_code& ec) {
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".so") continue;
    std::error_code fec;
    if (!fs::is_regular_file(p, fec)) continue;  // follows links; skips folders
    files.push_back(p);
  }
  // Sorted, so the order and every message are the same on every run.
  std::sort(files.begin(), files.end());
  return files;
}

std::map<std::string, FileStamp> plugin_files(const std::vector<fs::path>& dirs) {
  std::map<std::string, FileStamp> out;
  std::set<fs::path> scanned;
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    fs::path canon = fs::weakly_canonical(dir, ec);
    if (!scanned.insert(ec ? dir : canon).second) continue;
    for (const fs::path& f : plugin_files_in(dir, ec))
      if (std::optional<FileStamp> st = file_stamp(f)) out[f.string()] = *st;
  }
  return out;
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
  // Every candidate file in order: a file lent by `previous`, a failure, or one to inspect.
  struct Entry {
    fs::path file;
    std::shared_ptr<const PluginFile> lent;
    std::shared_ptr<PluginFile> fresh;
    std::string error;
  };
  std::vector<Entry> entries;
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

    const std::vector<fs::path> files = plugin_files_in(dir, ec);
    if (ec)
      throw InputError(fmt::format("{}: cannot list the plugin folder: {}", dir.string(),
                                   ec.message()));

    for (const fs::path& file : files) {
      Entry e;
      e.file = file;
      if (std::string why = trust_problem(file); !why.empty()) {
        e.error = fmt::format("{}: refused: {}", file.string(), why);
        entries.push_back(std::move(e));
        continue;
      }
      if (previous) {
        std::optional<FileStamp> now = file_stamp(file);
        for (const auto& old : previous->plugins_)
          if (now && old->info().file == file && old->info().stamp == *now) e.lent = old;
      }
      if (!e.lent) {
        try {
          e.fresh = PluginFile::open_bytes(file);
        } catch (const InputError& err) {
          e.error = err.what();
        }
      }
      entries.push_back(std::move(e));
    }
  }

  // What the new files declare, learnt in a child.
  std::vector<PluginFile*> fresh;
  std::vector<Entry*> of_fresh;
  for (Entry& e : entries)
    if (e.fresh) {
      fresh.push_back(e.fresh.get());
      of_fresh.push_back(&e);
    }
  if (!fresh.empty()) {
    std::vector<std::string> errors;
    PluginFile::inspect_all(fresh, errors);
    for (size_t i = 0; i < errors.size(); ++i)
      if (!errors[i].empty()) {
        of_fresh[i]->error = errors[i];
        of_fresh[i]->fresh.reset();
      }
  }

  std::map<std::string, fs::path> owner;  // plugin name -> file that declares it
  for (Entry& e : entries) {
    if (!e.error.empty()) {
      cat.failures_.push_back(Failure{e.file, e.error});
      continue;
    }
    std::shared_ptr<const PluginFile> f = e.lent ? e.lent : e.fresh;
    auto [it, first] = owner.emplace(f->info().name, e.file);
    if (!first)
      throw InputError(fmt::format("plugin '{}' is provided by two files, {} and {}: remove "
                                   "one of them",
                                   f->info().name, it->second.string(), e.file.string()));
    cat.plugins_.push_back(std::move(f));
  }
  std::sort(cat.plugins_.begin(), cat.plugins_.end(),
            [](const auto& a, const auto& b) { return a->info().name < b->info().name; });
  return cat;
}

std::shared_ptr<const PluginFile> PluginCatalog::find(const std::string& name) const {
  auto it = std::lower_bound(plugins_.begin(), plugins_.end(), name,
                             [](const auto& f, const std::string& n) { return f->info().name < n; });
  if (it != plugins_.end() && (*it)->info().name == name) return *it;
  return nullptr;
}

}  // namespace caldera
