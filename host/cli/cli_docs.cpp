#include "host/cli/cli_docs.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <vector>

namespace caldera::cli {

namespace fs = std::filesystem;

namespace {

// roff: a leading '.' or '\'' would be read as a request; backslashes and '-' escaped.
std::string roff(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::vector<const CLI::App*> subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); });
}

// "-c, --config, --scheduler-conf"
std::string option_names(const CLI::Option& o) {
  std::string out;
  for (const auto& s : o.get_snames()) out += (out.empty() ? "-" : ", -") + s;
  for (const auto& l : o.get_lnames()) out += (out.empty() ? "--" : ", --") + l;
  return out;
}

bool takes_value(const CLI::Option& o) { return o.get_items_expected_max() > 0; }

void page(const CLI::App& app, const std::string& path_name, const std::string& version,
          const CLI::App& root, const fs::path& dir, int* failed) {
  const std::string title = path_name;  // "caldera", "caldera-run", "caldera-plugins-list"
  std::string upper;
  for (char c : title) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string text = fmt::format(".TH {} 1 \"\" \"caldera {}\" \"Caldera\"\n", upper, version);
  text += ".SH NAME\n" + roff(title) + " \\- " + roff(app.get_description()) + "\n";
  std::string cmd = title;
  for (char& c : cmd)
    if (c == '-') c = ' ';
  // A subcommand name with a dash of its own (new-plugin) keeps it.
  if (&app != &root) {
    std::string parent = title.substr(0, title.size() - app.get_name().size() - 1);
    for (char& c : parent)
      if (c == '-') c = ' ';
    cmd = parent + " " + app.get_name();
  }
  text += ".SH SYNOPSIS\n.B " + roff(cmd) + "\n";
  for (const CLI::Option* o : app.get_options())
    if (!o->nonpositional()) text += ".I " + roff(o->get_name()) + "\n";
  if (!app.get_options([](const CLI::Option* o) { return o->nonpositional(); }).empty())
    text += "[\\fIOPTIONS\\fR]\n";
  const auto subs = subcommands(app);
  if (!subs.empty()) text += "\\fISUBCOMMAND\\fR\n";
  if (!subs.empty()) {
    text += ".SH COMMANDS\n";
    for (const CLI::App* s : subs)
      text += ".TP\n.B " + roff(s->get_name()) + "\n" + roff(s->get_description()) +
              " (\\fB" + roff(title + "-" + s->get_name()) + "\\fR(1))\n";
  }
  const auto positionals = app.get_options([](const CLI::Option* o) { return !o->nonpositional(); });
  if (!positionals.empty()) {
    text += ".SH ARGUMENTS\n";
    for (const CLI::Option* o : positionals)
      text += ".TP\n.I " + roff(o->get_name()) + "\n" + roff(o->get_description()) + "\n";
  }
  const auto options = app.get_options([](const CLI::Option* o) { return o->nonpositional(); });
  if (!options.empty()) {
    text += ".SH OPTIONS\n";
    for (const CLI::Option* o : options) {
      text += ".TP\n.B " + roff(option_names(*o));
      if (takes_value(*o)) text += " \\fI" + roff(o->get_type_name().empty() ? "VALUE" : o->get_type_name()) + "\\fR";
      text += "\n" + roff(o->get_description()) + "\n";
    }
  }
  text += ".SH SEE ALSO\n";
  if (&app != &root) text += "\\fBcaldera\\fR(1); ";
  text += "README.md, docs/ and SCENARIOS.md of the Caldera sources.\n";
  const fs::path file = dir / (title + ".1");
  std::ofstream out(file);
  out << text;
  if (!out) {
    std::fprintf(stderr, "manpages: cannot write %s\n", file.string().c_str());
    *failed = 1;
  }
  for (const CLI::App* s : subs) page(*s, title + "-" + s->get_name(), version, root, dir, failed);
}

}  // namespace

int write_man_pages(const CLI::App& app, const fs::path& dir, const std::string& version) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "manpages: cannot create %s: %s\n", dir.string().c_str(),
                 ec.message().c_str());
    return 1;
  }
  int failed = 0;
  page(app, "caldera", version, app, dir, &failed);  // not argv[0], which CLI11 takes as the name
  return failed;
}

std::string bash_completion(const CLI::App& app) {
  // One case per command path ("caldera plugins list"): its words (subcommands, options)
  // and whether the word before takes a value (then file names).
  std::string cases, value_options;
  std::vector<std::pair<std::string, const CLI::App*>> todo{{"", &app}};
  while (!todo.empty()) {
    auto [path, a] = todo.back();
    todo.pop_back();
    std::string words;
    for (const CLI::App* s : subcommands(*a)) {
      words += (words.empty() ? "" : " ") + s->get_name();
      todo.emplace_back(path.empty() ? s->get_name() : path + " " + s->get_name(), s);
    }
    for (const CLI::Option* o : a->get_options([](const CLI::Option* o) { return o->nonpositional(); }))
      for (const auto& l : o->get_lnames()) {
        words += (words.empty() ? "--" : " --") + l;
        if (takes_value(*o)) value_options += " --" + l;
      }
    cases += fmt::format("    \"{}\") words=\"{}\" ;;\n", path, words);
  }
  return fmt::format(R"(# bash completion for caldera (written by `caldera completion bash`)
_caldera() {{
  local cur prev path="" w i
  cur="${{COMP_WORDS[COMP_CWORD]}}"
  prev="${{COMP_WORDS[COMP_CWORD-1]}}"
  case " {} " in
    *" $prev "*) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  # The command path so far: the words that name subcommands.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${{COMP_WORDS[i]}}"
    [[ $w == -* ]] && continue
    case "${{path:+$path }}$w" in
{}      *) continue ;;
    esac
    path="${{path:+$path }}$w"
  done
  local words=""
  case "$path" in
{}  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "${{words//--*([^ ])/}}" -- "$cur") $(compgen -f -- "$cur"))
  fi
}}
shopt -s extglob
complete -F _caldera caldera vc-scheduler
)",
                     value_options, [&] {
                       std::string known;
                       std::vector<std::pair<std::string, const CLI::App*>> all{{"", &app}};
                       while (!all.empty()) {
                         auto [path, a] = all.back();
                         all.pop_back();
                         for (const CLI::App* s : subcommands(*a)) {
                           const std::string p = path.empty() ? s->get_name() : path + " " + s->get_name();
                           known += fmt::format("      \"{}\") ;;\n", p);
                           all.emplace_back(p, s);
                         }
                       }
                       return known;
                     }(),
                     cases);
}

}  // namespace caldera::cli
