// Reading the openb trace CSVs (see openb_trace.hpp). The simulator this follows
// (hkust-adsl/kubernetes-scheduler-simulator, data/prepare_input.sh and pkg/utils) turns the
// same columns into pods and nodes: num_gpu cards of gpu_milli each, a share only on one
// card, gpu_spec as '|'-separated models.
#include "host/replay/openb_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "host/util/input_error.hpp"

namespace caldera::replay {

namespace {

// One parsed CSV file: the header's column positions and the data rows with their lines.
struct CsvRow {
  int line = 0;
  std::vector<std::string> fields;
};

struct Csv {
  std::string file;
  std::map<std::string, size_t> columns;  // header name -> position
  std::vector<CsvRow> rows;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits one line into fields; a field may be double-quoted ("a,b", "say ""hi""").
// Returns false on an unterminated quote.
bool split_csv_line(const std::string& line, std::vector<std::string>& out) {
  out.clear();
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (quoted) return false;
  out.push_back(trim(cur));
  return true;
}

Csv read_csv(const std::filesystem::path& path, const std::vector<std::string>& required) {
  Csv csv;
  csv.file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", csv.file));
  std::string line;
  int line_no = 0;
  bool header = true;
  std::vector<std::string> fields;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_no == 1 && line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0)
      line.erase(0, 3);  // a UTF-8 byte order mark
    if (trim(line).empty()) continue;  // blank lines carry nothing
    if (!split_csv_line(line, fields))
      throw InputError(fmt::format("{}:{}: unterminated quoted field", csv.file, line_no));
    if (header) {
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].empty())
          throw InputError(fmt::format("{}:{}: header column {} has no name", csv.file, line_no,
                                       i + 1));
        if (!csv.columns.emplace(fields[i], i).second)
          throw InputError(fmt::format("{}:{}: header names column '{}' twice", csv.file,
                                       line_no, fields[i]));
      }
      for (const auto& r : required)
        if (!csv.columns.count(r))
          throw InputError(fmt::format("{}:{}: the header has no column '{}' (needed: {})",
                                       csv.file, line_no, r, fmt::join(required, ", ")));
      header = false;
      continue;
    }
    csv.rows.push_back({line_no, fields});
  }
  if (header) throw InputError(fmt::format("{}: the file is empty (no header line)", csv.file));
  return csv;
}

// Reads the fields of one row by column name, raising InputError with file, line, column.
class RowReader {
 public:
  RowReader(const Csv& csv, const CsvRow& row, std::string what)
      : csv_(csv), row_(row), what_(std::move(what)) {}

  void set_object(std::string what) { what_ = std::move(what); }

  [[noreturn]] void fail(const std::string& column, const std::string& msg) const {
    throw InputError(fmt::format("{}:{}: {}column '{}': {}", csv_.file, row_.line,
                                 what_.empty() ? "" : what_ + ": ", column, msg));
  }

  const std::string& text(const std::string& column) const {
    size_t pos = csv_.columns.at(column);
    if (pos >= row_.fields.size())
      fail(column, fmt::format("missing (the row has {} fields, the header {})",
                               row_.fields.size(), csv_.columns.size()));
    return row_.fields[pos];
  }

  // A whole number >= 0. Empty, negative, fractional or non-numeric text is an error.
  int64_t count(const std::string& column, int64_t max = INT64_MAX / 4) const {
    const std::string& s = text(column);
    if (s.empty()) fail(column, "empty (a whole number >= 0 is needed)");
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > max))
      fail(column, fmt::format("'{}' is too large", s));
    if (ec != std::errc() || p != s.data() + s.size()) {
      if (!s.empty() && s[0] == '-') {
        double d = 0;
        auto [q, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
        if (ec2 == std::errc() && q == s.data() + s.size())
          fail(column, fmt::format("'{}' is negative", s));
      }
      fail(column, fmt::format("'{}' is not a whole number", s));
    }
    if (v < 0) fail(column, fmt::format("'{}' is negative", s));
    return v;
  }

  int line() const { return row_.line; }

 private:
  const Csv& csv_;
  const CsvRow& row_;
  std::string what_;
};

// Runs f on each row; an InputError either stops the load or, with skip, is recorded.
template <class F>
void each_row(const Csv& csv, bool skip, LoadReport& report, F&& f) {
  for (const CsvRow& row : csv.rows) {
    try {
      f(row);
    } catch (const InputError& e) {
      if (!skip) throw;
      ++report.skipped;
      report.errors.emplace_back(e.what());
    }
  }
}

std::vector<std::string> parse_models(const RowReader& r, const std::string& column,
                                      const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  size_t pos = 0;
  while (true) {
    size_t bar = text.find('|', pos);
    std::string m = trim(text.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos));
    if (m.empty()) r.fail(column, fmt::format("'{}' has an empty model name", text));
    if (!valid_model_name(m))
      r.fail(column, fmt::format("'{}' is not a GPU model name (letters, digits, '.', '_', '-')", m));
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    if (bar == std::string::npos) break;
    pos = bar + 1;
  }
  return out;
}

}  // namespace

bool valid_model_name(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string OpenbPod::gpu_spec() const { return fmt::format("{}", fmt::join(models, "|")); }

std::vector<OpenbNode> load_openb_nodes(const std::filesystem::path& file, bool skip_bad_rows,
                                        LoadReport& report) {
  Csv csv = read_csv(file, {"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  std::vector<OpenbNode> nodes;
  std::set<std::string> names;
  each_row(csv, skip_bad_rows, report, [&](const CsvRow& row) {
    RowReader r(csv, row, "");
    OpenbNode n;
    n.line = row.line;
    n.name = r.text("sn");
    if (n.name.empty()) r.fail("sn", "empty (every node needs a name)");
    r.set_object("node " + n.name);
    n.cpu_milli = r.count("cpu_milli");
    n.memory_mib = r.count("memory_mib");
    n.gpus = static_cast<int32_t>(r.count("gpu", 1024));
    n.model = r.text("model");
    if (n.gpus > 0) {
      if (n.model.empty()) r.fail("model", fmt::format("empty, but the node has {} GPUs", n.gpus));
      if (!valid_model_name(n.model))
        r.fail("model", fmt::format("'{}' is not a GPU model name (letters, digits, '.', '_', '-')",
                                    n.model));
    } else if (!n.model.empty() && !valid_model_name(n.model)) {
      r.fail("model", fmt::format("'{}' is not a GPU model name", n.model));
    }
    if (!names.insert(n.name).second) r.fail("sn", "a node of this name is listed before");
    nodes.push_back(std::move(n));
  });
  return nodes;
}

std::vector<OpenbPod> load_openb_pods(const std::filesystem::path& file, bool skip_bad_rows,
                                      LoadReport& report) {
  // gpu_spec and the columns after it are optional: the trace's multigpu* variants stop at
  // gpu_milli, and the paper's simulator reads a missing gpu_spec as no model constraint.
  Csv csv = read_csv(file, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"});
  const bool has_spec = csv.columns.count("gpu_spec") != 0;
  std::vector<OpenbPod> pods;
  std::set<std::string> names;
  each_row(csv, skip_bad_rows, report, [&](const CsvRow& row) {
    RowReader r(csv, row, "");
    OpenbPod p;
    p.file = csv.file;
    p.line = row.line;
    p.name = r.text("name");
    if (p.name.empty()) r.fail("name", "empty (every pod needs a name)");
    r.set_object("pod " + p.name);
    p.cpu_milli = r.count("cpu_milli");
    p.memory_mib = r.count("memory_mib");
    p.num_gpu = static_cast<int32_t>(r.count("num_gpu", 1024));
    p.gpu_milli = static_cast<int32_t>(r.count("gpu_milli", INT32_MAX));
    if (p.gpu_milli > kMilliPerGpu)
      r.fail("gpu_milli", fmt::format("{} is more than one card ({} milli-GPU); ask whole cards "
                                      "with num_gpu instead",
                                      p.gpu_milli, kMilliPerGpu));
    if (p.num_gpu == 0 && p.gpu_milli != 0)
      r.fail("gpu_milli", fmt::format("{} milli-GPU but num_gpu is 0", p.gpu_milli));
    if (p.num_gpu > 0 && p.gpu_milli == 0)
      r.fail("gpu_milli", fmt::format("0, but num_gpu is {} (whole cards are 1000)", p.num_gpu));
    if (p.num_gpu > 1 && p.gpu_milli != kMilliPerGpu)
      r.fail("gpu_milli", fmt::format("{} with num_gpu {}: only a one-card pod can take a share "
                                      "(whole cards are 1000)",
                                      p.gpu_milli, p.num_gpu));
    if (has_spec) p.models = parse_models(r, "gpu_spec", r.text("gpu_spec"));
    if (p.num_gpu == 0 && !p.models.empty())
      r.fail("gpu_spec", fmt::format("'{}' names GPU models, but the pod asks no GPU",
                                     r.text("gpu_spec")));
    if (!names.insert(p.name).second) r.fail("name", "a pod of this name is listed before");
    pods.push_back(std::move(p));
  });
  return pods;
}

void check_pods_against_nodes(std::vector<OpenbPod>& pods, const std::vector<OpenbNode>& nodes,
                              bool skip_bad_rows, LoadReport& report) {
  // The most cards any node of each model has, and over all models.
  std::map<std::string, int32_t> most_by_model;
  int32_t most = 0;
  for (const auto& n : nodes) {
    if (n.gpus <= 0) continue;
    most_by_model[n.model] = std::max(most_by_model[n.model], n.gpus);
    most = std::max(most, n.gpus);
  }
  std::vector<OpenbPod> kept;
  kept.reserve(pods.size());
  for (auto& p : pods) {
    std::string error;
    if (p.num_gpu > 0) {
      if (p.models.empty()) {
        if (p.num_gpu > most)
          error = fmt::format("column 'num_gpu': {} cards, but no node has more than {}",
                              p.num_gpu, most);
      } else {
        int32_t best = 0;
        for (const auto& m : p.models)
          if (auto it = most_by_model.find(m); it != most_by_model.end())
            best = std::max(best, it->second);
        if (best == 0)
          error = fmt::format("column 'gpu_spec': no node has a GPU of model {} (the cluster "
                              "has {})",
                              p.gpu_spec(), [&] {
                                std::vector<std::string> ms;
                                for (const auto& [m, _] : most_by_model) ms.push_back(m);
                                return fmt::format("{}", fmt::join(ms, ", "));
                              }());
        else if (p.num_gpu > best)
          error = fmt::format("column 'num_gpu': {} cards of model {}, but no such node has more "
                              "than {}",
                              p.num_gpu, p.gpu_spec(), best);
      }
    }
    if (error.empty()) {
      kept.push_back(std::move(p));
      continue;
    }
    std::string msg = fmt::format("{}:{}: pod {}: {}: it can never be placed", p.file, p.line,
                                  p.name, error);
    if (!skip_bad_rows) throw InputError(msg);
    ++report.skipped;
    report.errors.push_back(std::move(msg));
  }
  pods = std::move(kept);
}

}  // namespace caldera::replay
