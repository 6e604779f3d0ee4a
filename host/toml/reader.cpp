#include "host/toml/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace caldera::input {

namespace fs = std::filesystem;

namespace {

SourceRef ref(const std::string& file, const toml::source_region& r) {
  return SourceRef{file, static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
}

// "an integer from 1 to 100", "an integer of at least 0", "an integer". An upper bound of
// INT32_MAX only says the value must fit in 32 bits; it is shown only with INT32_MIN.
std::string integer_phrase(int64_t min, int64_t max) {
  constexpr int64_t i32min = std::numeric_limits<int32_t>::min();
  constexpr int64_t i32max = std::numeric_limits<int32_t>::max();
  const bool low = min != std::numeric_limits<int64_t>::min();
  const bool high = max != std::numeric_limits<int64_t>::max() && !(max == i32max && min != i32min);
  if (low && high) return fmt::format("an integer from {} to {}", min, max);
  if (low) return fmt::format("an integer of at least {}", min);
  if (high) return fmt::format("an integer of at most {}", max);
  return "an integer";
}

}  // namespace

std::string type_phrase(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

// --- Value ------------------------------------------------------------------------------

SourceRef Value::src() const { return ref(*file_, node_->source()); }

Value Value::named(std::string_view name) const {
  return Value(file_, node_, path_.named(name));
}

void Value::fail(std::string_view problem, std::string_view expected) const {
  input::fail(src(), path_.str(), problem, expected);
}

void Value::wrong_type(std::string_view expected) const {
  fail("got " + type_phrase(*node_), expected);
}

std::string Value::written() const {
  if (const auto* s = node_->as_string()) return "'" + s->get() + "'";
  if (const auto* i = node_->as_integer()) return std::to_string(i->get());
  if (const auto* f = node_->as_floating_point()) return fmt::format("{}", f->get());
  if (const auto* b = node_->as_boolean()) return b->get() ? "true" : "false";
  return type_phrase(*node_);
}

std::string Value::string(std::string_view expected) const {
  if (const auto* s = node_->as_string()) return s->get();
  wrong_type(expected);
}

bool Value::boolean() const {
  if (const auto* b = node_->as_boolean()) return b->get();
  wrong_type("true or false");
}

int64_t Value::integer(int64_t min, int64_t max) const {
  const auto* i = node_->as_integer();
  if (!i) wrong_type(integer_phrase(min, max));
  if (i->get() < min || i->get() > max)
    fail(fmt::format("{} is out of range", i->get()), integer_phrase(min, max));
  return i->get();
}

double Value::number(std::string_view expected) const {
  double v;
  if (const auto* i = node_->as_integer())
    v = static_cast<double>(i->get());
  else if (const auto* f = node_->as_floating_point())
    v = f->get();
  else
    wrong_type(expected);
  if (!std::isfinite(v))
    fail(fmt::format("{} is not finite", v), fmt::format("{}, finite", expected));
  return v;
}

Table Value::table(std::string_view expected) const {
  if (const auto* t = node_->as_table()) return Table(file_, t, path_);
  wrong_type(expected);
}

Array Value::array(std::string_view expected) const {
  if (const auto* a = node_->as_array()) return Array(file_, a, path_);
  wrong_type(expected);
}

std::vector<std::string> Value::strings() const {
  Array a = array("an array of strings");
  std::vector<std::string> out;
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) out.push_back(a[i].string());
  return out;
}

size_t Value::choice_index(const std::vector<std::string>& names, std::string_view noun) const {
  const std::string expected = "one of " + join(names);
  const std::string s = string(expected);
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == s) return i;
  fail(fmt::format("unknown {} '{}'{}", noun, s, did_you_mean(s, names)), expected);
}

// --- Table ------------------------------------------------------------------------------

Table::Table(const toml::table& table, const fs::path& file, std::string path)
    : file_(std::make_shared<const std::string>(file.string())),
      table_(&table),
      path_(ObjectPath(std::move(path))) {}

SourceRef Table::src() const { return ref(*file_, table_->source()); }

Table Table::named(std::string_view name) const {
  return Table(file_, table_, path_.named(name));
}

void Table::fail(std::string_view problem, std::string_view expected) const {
  input::fail(src(), path_.str(), problem, expected);
}

void Table::check_keys(std::initializer_list<std::string_view> allowed) const {
  for (auto&& [k, v] : *table_) {
    (void)v;
    bool ok = false;
    for (std::string_view a : allowed) ok = ok || a == k.str();
    if (ok) continue;
    const std::vector<std::string> names(allowed.begin(), allowed.end());
    input::fail(ref(*file_, k.source()), path_.str(),
                fmt::format("unknown {}key '{}'{}", path_.empty() ? "top-level " : "", k.str(),
                            did_you_mean(k.str(), names)),
                "one of the allowed keys: " + join(names));
  }
}

std::optional<Value> Table::get(std::string_view key) const {
  // The key as the table holds it: the value's path keeps a view of it.
  const auto it = table_->find(key);
  if (it == table_->end()) return std::nullopt;
  return Value(file_, &it->second, path_.key(it->first.str()));
}

SourceRef Table::key_src(std::string_view key) const {
  const auto it = table_->find(key);
  return it == table_->end() ? src() : ref(*file_, it->first.source());
}

Value Table::require(std::string_view key, std::string_view expected) const {
  if (std::optional<Value> v = get(key)) return *v;
  missing(key, expected);
}

void Table::missing(std::string_view key, std::string_view expected) const {
  fail(fmt::format("missing {}key '{}'", path_.empty() ? "top-level " : "", key), expected);
}

std::optional<std::string> Table::opt_string(std::string_view key) const {
  std::optional<Value> v = get(key);
  if (!v) return std::nullopt;
  return v->string();
}

std::optional<bool> Table::opt_bool(std::string_view key) const {
  std::optional<Value> v = get(key);
  if (!v) return std::nullopt;
  return v->boolean();
}

std::optional<int64_t> Table::opt_int(std::string_view key, int64_t min, int64_t max) const {
  std::optional<Value> v = get(key);
  if (!v) return std::nullopt;
  return v->integer(min, max);
}

std::optional<double> Table::opt_number(std::string_view key) const {
  std::optional<Value> v = get(key);
  if (!v) return std::nullopt;
  return v->number();
}

std::optional<Table> Table::opt_table(std::string_view key) const {
  std::optional<Value> v = get(key);
  if (!v) return std::nullopt;
  return v->table();
}

StringTable Table::string_map(std::string_view key) const {
  StringTable out;
  std::optional<Value> v = get(key);
  if (!v) return out;
  // The table's keys come sorted as the map sorts them: each goes in at the end.
  v->table("a table of strings").each([&](std::string_view k, const Value& e) {
    out.emplace_hint(out.end(), k, e.string("a string (write it in quotes)"));
  });
  return out;
}

std::vector<Table> Table::tables(std::string_view key) const {
  std::optional<Value> v = get(key);
  if (!v) return {};
  if (!v->node().is_array())
    v->wrong_type(fmt::format("an array of tables ([[{}]])", v->path()));
  return v->array().tables("a table");
}

std::vector<Entry> Table::entries() const {
  std::vector<Entry> out;
  out.reserve(table_->size());
  for (auto&& [k, v] : *table_)
    out.push_back(Entry{std::string(k.str()), ref(*file_, k.source()),
                        Value(file_, &v, path_.key(k.str()))});
  return out;
}

// --- Array ------------------------------------------------------------------------------

Value Array::operator[](size_t i) const {
  return Value(file_, array_->get(i), path_.index(i));
}

std::vector<Value> Array::values() const {
  std::vector<Value> out;
  out.reserve(size());
  for (size_t i = 0; i < size(); ++i) out.push_back((*this)[i]);
  return out;
}

std::vector<Table> Array::tables(std::string_view expected) const {
  std::vector<Table> out;
  out.reserve(size());
  for (size_t i = 0; i < size(); ++i) out.push_back((*this)[i].table(expected));
  return out;
}

// --- Files ------------------------------------------------------------------------------

std::string read_text(const fs::path& file, std::string_view what, uint64_t max_bytes) {
  const std::string name = file.string();
  auto cannot = [&](std::string_view reason, std::string_view expected = {}) {
    input::fail(SourceRef{name, 0, 0}, "", fmt::format("cannot read the {}: {}", what, reason),
                expected);
  };
  // Opened without blocking and checked on the descriptor itself: a FIFO, a device or a
  // file swapped for one between a check and the open is refused, never waited on or read
  // without end (/dev/zero).
  const int fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) cannot("no such file");
    cannot(std::strerror(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) cannot(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) cannot("it is a folder", "a regular file");
  if (!S_ISREG(st.st_mode)) cannot("it is not a regular file", "a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    cannot(fmt::format("it is {} bytes", size), fmt::format("at most {} bytes", max_bytes));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // Chunks up to one past the limit: a file that grew since its size was taken is still
  // refused rather than read without end.
  std::string text;
  text.reserve(static_cast<size_t>(size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) cannot(std::strerror(errno));
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
    if (text.size() > max_bytes)
      cannot(fmt::format("it is more than {} bytes", max_bytes),
             fmt::format("at most {} bytes", max_bytes));
  }
  return text;
}

Document parse_text(std::string_view text, const fs::path& file) {
  Document doc;
  doc.file = std::make_shared<const std::string>(file.string());
  try {
    doc.root = toml::parse(text, *doc.file);
  } catch (const toml::parse_error& e) {
    input::fail(ref(*doc.file, e.source()), "",
                fmt::format("TOML syntax error: {}", e.description()));
  }
  return doc;
}

void Document::release(const Table& t) {
  assert(&t.file() == file.get());  // a view of this document
  // The document's tables are not const objects: only its views see them as const.
  const_cast<toml::table&>(t.raw()).clear();
}

Document parse_file(const fs::path& file, std::string_view what, uint64_t max_bytes) {
  return parse_text(read_text(file, what, max_bytes), file);
}

}  // namespace caldera::input
