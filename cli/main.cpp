// layoutscope: the layout engine on the command line. JSON on stdout, one object a line; bad input exits 2
// with {"error": {"message", "column", "field", "input"}} on stdout and a caret under the column on stderr.
//
// Adding a command. Each command (or a small family) is one file, cli/<name>_command.cpp, which defines
// `void add_<name>_command(CLI::App& app)`; this file only declares it below and calls it in main(). The
// build takes every cli/*.cpp. A command file reads:
//
//   void add_plan_command(CLI::App& app) {
//     auto args = std::make_shared<PlanArgs>();                  // outlives parsing
//     CLI::App* command = add_command(app, "plan", "What it does", "  layoutscope plan 'S[8:1]' ...\n");
//     command->add_option("EXPR", args->layout, "The layout; - reads layouts from standard input");
//     add_arg(command, args->shape, "shape", "R,C", "Logical shape");   // kept as text, parsed strictly
//     on_run(command, [args] {                                   // last: it adds the strict checks
//       return for_each_layout(args->layout, [&](const std::string& text) { ...; emit(json); return 0; });
//     });
//   }
//
// Everything the commands share is in cli_support.hpp: numbers are decimal and range-checked
// (option_arg, decimal_arg, parse_decimal_list), shape_arg and layout_arg fail with the column, emit()
// prints one JSON line, fail() reports bad input (exit 2), for_each_layout() gives every command that takes
// EXPR the batch mode `-` (layouts from standard input, a JSON line each). on_run() refuses unknown
// options, options given twice and arguments left over, naming them; per-command --help comes from
// CLI11 with the examples passed to add_command.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli_support.hpp"
#include "layoutscope_version.hpp"

namespace layoutscope::cli {

void add_eval_command(CLI::App& app);
void add_table_command(CLI::App& app);
void add_inverse_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_canon_command(CLI::App& app);
void add_swizzle_command(CLI::App& app);
void add_memory_access_command(CLI::App& app);  // banks, sectors
void add_interop_command(CLI::App& app);        // import, export
void add_algebra_command(CLI::App& app);
void add_access_command(CLI::App& app);
void add_advise_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_reshard_command(CLI::App& app);
void add_scan_command(CLI::App& app);
void add_completion_command(CLI::App& app);  // completion, man-page (hidden)
void add_tcgen05_command(CLI::App& app);  // tcgen05
void add_desc_command(CLI::App& app);     // desc

constexpr const char* kFooter =
    R"(EXPR is a layout such as 'S[(8,4,2):(4@laneid,1@laneid,1@reg)] + R[2:1@gpuid_x]' (README.md, "The
notation"), or - to read layouts from standard input, one a line: each line gets its JSON line, a bad
line {"error": {..., "line": N}}, and the exit status is 2 when any line failed. Without --shape the
logical shape is one dimension of the layout's size. Numbers are decimal. -- ends the options.
Exit status: 0 done, 1 check found an error, 2 bad input ({"error": {"message", "column", "field"}}).
layoutscope COMMAND --help shows a command's options and examples.)";

namespace {

// The name of the option a CLI11 message starts with ("--width: 1 required TEXT missing" -> "width").
std::string option_in(const std::string& message) {
  if (message.rfind("--", 0) != 0) return {};
  return message.substr(2, message.find_first_of(": ") - 2);
}

int report(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0 || e.get_name() == "RuntimeError") return app.exit(e);  // help, version, status
  const std::string message = e.what();
  const std::string option = option_in(message);
  if (e.get_name() == "ArgumentMismatch" && !option.empty() && message.find("missing") != std::string::npos) {
    print_failure({make_error("option --" + option + " needs a value", 0, option), {}});
  } else {
    print_failure({make_error(message, 0, option), {}});
  }
  return 2;
}

// No command ran: name what was given instead.
int no_command(const CLI::App& app) {
  const auto extras = app.remaining();
  std::string commands;
  for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; }))
    commands += (commands.empty() ? "" : ", ") + c->get_name();
  if (extras.empty()) {
    std::cerr << app.help();
    print_failure({make_error("give a command: " + commands, 0, "command"), {}});
  } else if (extras.front().rfind("-", 0) == 0) {
    print_failure({make_error("unknown option '" + printable(extras.front()) + "'; see layoutscope --help", 0,
                              extras.front().substr(extras.front().find_first_not_of('-'))),
                   {}});
  } else {
    print_failure(
        {make_error("unknown command '" + printable(extras.front()) + "' (" + commands + ")", 0, "command"),
         {}});
  }
  return 2;
}

// help [COMMAND]: the program's help, or the command's (the same text as COMMAND --help).
int print_help(const CLI::App& app, const std::string& topic) {
  if (topic.empty()) {
    std::cout << app.get_formatter()->make_help(&app, "layoutscope", CLI::AppFormatMode::Normal);
    return 0;
  }
  std::string commands;
  for (const CLI::App* c : app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); })) {
    if (c->get_name() == topic) {
      std::cout << c->help("layoutscope");
      return 0;
    }
    commands += (commands.empty() ? "" : ", ") + c->get_name();
  }
  print_failure({make_error("no command '" + printable(topic) + "' (" + commands + ")", 0, "command"), {}});
  return 2;
}

}  // namespace
}  // namespace layoutscope::cli

int main(int argc, char** argv) {
  namespace cli = layoutscope::cli;
  CLI::App app{"layoutscope - GPU data layouts: S[(shape):(strides@axis)] + R[...] + O[...], swizzles",
               "layoutscope"};
  auto formatter = std::make_shared<cli::Formatter>();
  formatter->label("Subcommands", "Commands");
  formatter->label("Positionals", "Arguments");
  app.formatter(formatter);
  app.set_version_flag("--version", "layoutscope " LAYOUTSCOPE_VERSION " (commit " LAYOUTSCOPE_COMMIT ")");
  app.allow_extras();  // unknown options and arguments reach on_run's checks, which name them
  app.require_subcommand(0, 1);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // on_run counts repeats

  cli::add_eval_command(app);
  cli::add_table_command(app);
  cli::add_inverse_command(app);
  cli::add_check_command(app);
  cli::add_canon_command(app);
  cli::add_swizzle_command(app);
  cli::add_memory_access_command(app);
  cli::add_interop_command(app);
  cli::add_algebra_command(app);
  cli::add_scan_command(app);
  cli::add_access_command(app);
  cli::add_advise_command(app);
  cli::add_plan_command(app);
  cli::add_reshard_command(app);
  cli::add_completion_command(app);
  cli::add_tcgen05_command(app);
  cli::add_desc_command(app);

  bool help = false;
  std::string topic;
  CLI::App* help_command = app.add_subcommand("help", "This text, or a command's help: help COMMAND");
  help_command->add_option("COMMAND", topic, "The command whose options and examples to show")->type_name("");
  help_command->callback([&help] { help = true; });
  app.footer(cli::kFooter);

  try {
    app.parse(argc, argv);
  } catch (const cli::Failure& failure) {
    cli::print_failure(failure);
    return 2;
  } catch (const CLI::ParseError& e) {
    return cli::report(app, e);
  }
  if (help) return cli::print_help(app, topic);
  if (app.get_subcommands().empty()) return cli::no_command(app);
  return 0;
}
