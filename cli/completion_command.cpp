// completion SHELL and man-page: the shell completion scripts (bash, zsh, fish) and the manual page (roff,
// man(7) macros), written from the program's own definitions: the CLI11 app's commands, their options,
// arguments, descriptions and examples, walked when the command runs. Nothing is listed by hand, so they
// cannot drift from the program. The build writes them into build/share/ and `cmake --install` installs them
// (cli/CMakeLists.txt).
//
//   layoutscope completion bash > /etc/bash_completion.d/layoutscope
//   layoutscope man-page | man -l -
#include <algorithm>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "layoutscope_version.hpp"

namespace layoutscope::cli {
namespace {

// What a script or the page needs to know of one command, read from CLI11.
struct OptionInfo {
  std::vector<std::string> names;  // "-h", "--help"
  std::string value;               // "R,C"; empty for a flag
  std::string description;
};
struct CommandInfo {
  std::string name;
  std::string description;
  std::string usage;     // the arguments: "EXPR QUERY..."
  std::string examples;  // the footer, without its "Examples:" line
  std::vector<OptionInfo> options;
  std::vector<std::string> arguments;  // positional names
};

const CLI::App& root_of(const CLI::App* app) {
  while (app->get_parent() != nullptr) app = app->get_parent();
  return *app;
}

bool shown(const CLI::App* c) { return !c->get_group().empty(); }

// The commands as `layoutscope --help` lists them (hidden ones, such as man-page, left out).
std::vector<CommandInfo> commands_of(const CLI::App& root) {
  std::vector<CommandInfo> out;
  for (const CLI::App* c : root.get_subcommands(shown)) {
    CommandInfo info{c->get_name(), c->get_description(), {}, {}, {}, {}};
    std::string footer = c->get_footer();
    if (footer.rfind("Examples:\n", 0) == 0) footer.erase(0, 10);
    info.examples = footer;
    for (const CLI::Option* o : c->get_options()) {
      if (o->get_group().empty()) continue;  // internal (the surplus catcher)
      if (o->get_positional() && !o->nonpositional()) {
        info.arguments.push_back(o->get_name());
        info.usage += " " + o->get_name() + (o->get_expected_max() > 1 ? "..." : "");
        continue;
      }
      OptionInfo option{{}, o->get_items_expected_max() > 0 ? o->get_type_name() : "", o->get_description()};
      for (const std::string& s : o->get_snames()) option.names.push_back("-" + s);
      for (const std::string& l : o->get_lnames()) option.names.push_back("--" + l);
      info.options.push_back(std::move(option));
    }
    out.push_back(std::move(info));
  }
  return out;
}

// The first line of a description, for the one-line places (zsh, fish).
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Inside '...' in sh, zsh and fish: ' as '\''.
std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string words(const std::vector<std::string>& list) {
  std::string out;
  for (const std::string& w : list) out += (out.empty() ? "" : " ") + w;
  return out;
}

// What a command's arguments complete to: a command name after help, a shell after completion, files
// otherwise (a layout may be read from a file with -, a results file, ...).
std::vector<std::string> argument_words(const CommandInfo& c, const std::vector<CommandInfo>& all) {
  if (c.name == "help") {
    std::vector<std::string> names;
    for (const CommandInfo& other : all) names.push_back(other.name);
    return names;
  }
  if (c.name == "completion") return {"bash", "zsh", "fish"};
  return {};
}

std::string bash_script(const std::vector<CommandInfo>& commands) {
  std::vector<std::string> names;
  for (const CommandInfo& c : commands) names.push_back(c.name);
  std::ostringstream out;
  out << "# bash completion for layoutscope, written by `layoutscope completion bash` "
         "(layoutscope " LAYOUTSCOPE_VERSION
         ")\n"
         "_layoutscope() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command='' i\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    case ${COMP_WORDS[i]} in -*) ;; *) command=${COMP_WORDS[i]}; break ;; esac\n"
         "  done\n"
         "  local options='' values='' arguments=''\n"
         "  case $command in\n"
         "    '') COMPREPLY=($(compgen -W "
      << single_quoted(words(names) + " --help --version") << " -- \"$cur\")); return ;;\n";
  for (const CommandInfo& c : commands) {
    std::vector<std::string> options, valued;
    for (const OptionInfo& o : c.options) {
      for (const std::string& name : o.names) {
        options.push_back(name);
        if (!o.value.empty()) valued.push_back(name);
      }
    }
    out << "    " << c.name << ") options=" << single_quoted(words(options))
        << " values=" << single_quoted(words(valued))
        << " arguments=" << single_quoted(words(argument_words(c, commands))) << " ;;\n";
  }
  out << "  esac\n"
         "  # the value of an option that takes one: nothing to offer but files\n"
         "  if [[ -n $prev && \" $values \" == *\" $prev \"* ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); "
         "return; fi\n"
         "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"));\n"
         "  elif [[ -n $arguments ]]; then COMPREPLY=($(compgen -W \"$arguments\" -- \"$cur\"));\n"
         "  else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
         "}\n"
         "complete -o filenames -F _layoutscope layoutscope\n";
  return out.str();
}

// zsh: a description inside _arguments' [...] and _describe's NAME:TEXT.
std::string zsh_text(const std::string& text) {
  std::string out;
  for (char ch : first_line(text)) {
    if (ch == '[' || ch == ']' || ch == ':' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

std::string zsh_script(const std::vector<CommandInfo>& commands) {
  std::ostringstream out;
  out << "#compdef layoutscope\n# zsh completion for layoutscope, written by `layoutscope completion zsh` "
         "(layoutscope " LAYOUTSCOPE_VERSION
         ")\n"
         "_layoutscope() {\n"
         "  local -a commands\n"
         "  commands=(\n";
  for (const CommandInfo& c : commands)
    out << "    " << single_quoted(c.name + ":" + zsh_text(c.description)) << "\n";
  out << "  )\n"
         "  if (( CURRENT == 2 )); then\n"
         "    _describe -t commands 'layoutscope command' commands\n"
         "    _arguments '--help[Print this help message and exit]' '--version[Display program version "
         "information and exit]'\n"
         "    return\n"
         "  fi\n"
         "  local command=$words[2]\n"
         "  shift words; (( CURRENT-- ))\n"
         "  case $command in\n";
  for (const CommandInfo& c : commands) {
    out << "    " << c.name << ")\n      _arguments";
    for (const OptionInfo& o : c.options) {
      for (const std::string& name : o.names) {
        // appended piece by piece: GCC 12 warns (falsely) on the chain of operator+ here
        std::string spec = name;
        spec.append("[").append(zsh_text(o.description)).append("]");
        if (!o.value.empty()) spec.append(":").append(zsh_text(o.value)).append(":_files");
        out << " \\\n        " << single_quoted(spec);
      }
    }
    const std::vector<std::string> args = argument_words(c, commands);
    if (!args.empty())
      out << " \\\n        " << single_quoted("*:argument:(" + words(args) + ")");
    else if (!c.arguments.empty())
      out << " \\\n        " << single_quoted("*:argument:_files");
    out << "\n      ;;\n";
  }
  out << "  esac\n"
         "}\n"
         "_layoutscope \"$@\"\n";
  return out.str();
}

std::string fish_script(const std::vector<CommandInfo>& commands) {
  std::ostringstream out;
  out << "# fish completion for layoutscope, written by `layoutscope completion fish` "
         "(layoutscope " LAYOUTSCOPE_VERSION
         ")\n"
         "complete -c layoutscope -f\n"
         "complete -c layoutscope -n __fish_use_subcommand -l help -d 'Print this help message and exit'\n"
         "complete -c layoutscope -n __fish_use_subcommand -l version -d 'Display program version "
         "information and exit'\n";
  for (const CommandInfo& c : commands) {
    out << "complete -c layoutscope -n __fish_use_subcommand -a " << c.name << " -d "
        << single_quoted(first_line(c.description)) << "\n";
    const std::string when = "-n " + single_quoted("__fish_seen_subcommand_from " + c.name);
    for (const OptionInfo& o : c.options) {
      out << "complete -c layoutscope " << when;
      for (const std::string& name : o.names)
        out << (name.rfind("--", 0) == 0 ? " -l " + name.substr(2) : " -s " + name.substr(1));
      if (!o.value.empty()) out << " -r -F";
      out << " -d " << single_quoted(first_line(o.description)) << "\n";
    }
    const std::vector<std::string> args = argument_words(c, commands);
    if (!args.empty())
      out << "complete -c layoutscope " << when << " -a " << single_quoted(words(args)) << "\n";
  }
  return out.str();
}

// roff: a backslash is \e, a line that would start with . or ' gets \& before it, a dash in an option is \-.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char ch : text) {
    if (line_start && (ch == '.' || ch == '\'')) out += "\\&";
    if (ch == '\\')
      out += "\\e";
    else if (ch == '-')
      out += "\\-";
    else
      out += ch;
    line_start = ch == '\n';
  }
  return out;
}

std::string man_page(const CLI::App& root, const std::vector<CommandInfo>& commands) {
  std::ostringstream out;
  const std::string description = root.get_description();
  const size_t dash = description.find(" - ");
  out << ".TH LAYOUTSCOPE 1 \"\" \"layoutscope " LAYOUTSCOPE_VERSION
         "\" \"User Commands\"\n"
         ".SH NAME\n"
         "layoutscope \\- "
      << roff(dash == std::string::npos ? description : description.substr(dash + 3))
      << "\n"
         ".SH SYNOPSIS\n"
         ".B layoutscope\n"
         ".I COMMAND\n"
         "[\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n"
         ".br\n"
         ".B layoutscope help\n"
         ".I COMMAND\n"
         ".SH DESCRIPTION\n"
         ".nf\n"
      << roff(root.get_footer())
      << "\n.fi\n"
         ".SH COMMANDS\n";
  for (const CommandInfo& c : commands) {
    out << ".SS \"" << roff("layoutscope " + c.name + (c.options.empty() ? "" : " [OPTIONS]") + c.usage)
        << "\"\n"
        << roff(c.description) << "\n";
    for (const OptionInfo& o : c.options) {
      std::string names;
      for (const std::string& name : o.names) names += (names.empty() ? "" : ", ") + name;
      out << ".TP\n.B " << roff(names);
      if (!o.value.empty()) out << " \\fI" << roff(o.value) << "\\fR";
      out << "\n" << roff(o.description) << "\n";
    }
    if (!c.examples.empty()) out << ".PP\nExamples:\n.PP\n.nf\n.RS\n" << roff(c.examples) << "\n.RE\n.fi\n";
  }
  out << ".SH EXIT STATUS\n"
         "0 done, 1 check found an error, 2 bad input (a JSON error object on standard output).\n"
         ".SH SEE ALSO\n"
         "layoutscope\\-agent \\-\\-help (the benchmark agent, installed with this program)\n";
  return out.str();
}

}  // namespace

void add_completion_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* completion =
      add_command(app, "completion", "A shell completion script (bash, zsh or fish) on stdout",
                  "  source <(layoutscope completion bash)\n"
                  "  layoutscope completion zsh > ~/.zfunc/_layoutscope\n"
                  "  layoutscope completion fish > ~/.config/fish/completions/layoutscope.fish\n");
  completion->add_option("SHELL", *shell, "bash, zsh or fish")->type_name("");
  on_run(completion, [completion, shell] {
    const std::vector<CommandInfo> commands = commands_of(root_of(completion));
    if (*shell == "bash")
      std::cout << bash_script(commands);
    else if (*shell == "zsh")
      std::cout << zsh_script(commands);
    else if (*shell == "fish")
      std::cout << fish_script(commands);
    else
      fail(make_error(shell->empty() ? "completion needs SHELL: bash, zsh or fish"
                                     : "unknown shell '" + printable(*shell) + "' (bash, zsh, fish)",
                      0, "shell"));
    return 0;
  });

  // Hidden (no group): for the build, which installs the page as share/man/man1/layoutscope.1.
  CLI::App* man = app.add_subcommand("man-page", "The manual page (roff) on stdout")->group("");
  on_run(man, [man] {
    const CLI::App& root = root_of(man);
    std::cout << man_page(root, commands_of(root));
    return 0;
  });
}

}  // namespace layoutscope::cli
