// import / export: layouts in CuTe, CuTe DSL, Triton, TIRx, JAX, Shardy, XLA HloSharding and DTensor syntax,
// read into the chapter's notation and written back out (shared/include/layoutscope/formats/).
#include <memory>
#include <optional>

#include "cli_support.hpp"
#include "layoutscope/formats/format.hpp"
#include "layoutscope/formats/triton.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::cli {
namespace {

struct InteropArgs {
  std::string text;
  CLI::Option* text_option = nullptr;
  Arg format, shape, mesh, encoding, element_bits;
};

Format format_arg(const Arg& arg) {
  auto f = parse_format(arg.value);
  if (!f) fail(make_error(f.error().message, 0, arg.name), arg.value);
  return *f;
}

FormatContext context_of(const InteropArgs& args) {
  FormatContext c;
  if (args.shape.given()) {
    auto shape = parse_decimal_list(args.shape.value, "shape", 1, int64_t{1} << 40, true);
    if (!shape) fail(shape.error(), args.shape.value);
    c.shape = *shape;
  }
  c.mesh = mesh_arg(args.mesh);
  return c;
}

Json mesh_json(const FormatContext& c) {
  Json m = Json::object();
  for (const auto& [name, n] : c.mesh) m[name] = n;
  return m;
}

}  // namespace

void add_interop_command(CLI::App& app) {
  auto in = std::make_shared<InteropArgs>();
  CLI::App* import = add_command(
      app, "import", "Read a layout written in another project's syntax into the chapter's notation",
      "  layoutscope import --from cute '(2,(2,2)):(4,(2,1))' --shape 2,4\n"
      "  layoutscope import --from jax \"P('x', None)\" --shape 8,4 --mesh x=2,y=4\n"
      "  layoutscope import --from triton '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
      "warpsPerCTA = [4, 1], order = [1, 0]}>' --shape 32,16\n");
  in->text_option =
      import->add_option("TEXT", in->text, "The layout as the other project writes it")->type_name("");
  add_arg(import, in->format, "from", "FORMAT",
          "cute, cute-dsl, triton, tirx, jax, shardy, hlo, dtensor, axe")
      ->required();
  add_arg(import, in->shape, "shape", "R,C,...", "Logical shape, where the text does not say it");
  add_arg(import, in->mesh, "mesh", "x=2,y=4", "Device mesh axes and sizes, major first");
  on_run(import, [in] {
    if (in->text_option->count() == 0) fail("import needs TEXT; see layoutscope import --help", "text");
    const Format from = format_arg(in->format);
    const FormatContext context = context_of(*in);
    auto imported = import_layout(from, in->text, context);
    if (!imported) fail(imported.error(), in->text);
    emit({{"layout", to_string(imported->layout)},
          {"shape", imported->shape},
          {"from", std::string(to_string(imported->from))},
          {"notes", imported->notes}});
    return 0;
  });

  auto out = std::make_shared<InteropArgs>();
  CLI::App* exp = add_command(
      app, "export", "Write a layout of the chapter's notation in another project's syntax",
      "  layoutscope export --to cute 'S[(2,2,2):(4,1,2)]' --shape 2,4\n"
      "  layoutscope export --to jax 'S[(2,4,4):(1@x,4@m,1@m)] + R[4:1@y]' --shape 8,4 --mesh x=2,y=4\n"
      "  layoutscope export --to triton 'Swizzle<3,3,3> o S[(64,64):(64,1)]' --shape 64,64 --encoding "
      "auto\n");
  out->text_option =
      exp->add_option("EXPR", out->text, "The layout; - reads layouts from standard input")->type_name("");
  add_arg(exp, out->format, "to", "FORMAT", "cute, cute-dsl, triton, tirx, jax, dtensor, axe")->required();
  add_arg(exp, out->shape, "shape", "R,C,...", "Logical shape (default: one dimension of the layout's size)");
  add_arg(exp, out->mesh, "mesh", "x=2,y=4", "Device mesh axes and sizes, major first");
  add_arg(
      exp, out->encoding, "encoding", "NAME",
      "Triton only: linear (default), blocked, swizzled_shared, nvmma_shared, or auto (a named one where it "
      "fits)");
  add_arg(exp, out->element_bits, "element-bits", "BITS",
          "Triton nvmma_shared: the element width (8, 16, 32, 64)");
  on_run(exp, [out] {
    if (out->text_option->count() == 0) fail("export needs EXPR; see layoutscope export --help", "layout");
    const Format to = format_arg(out->format);
    FormatContext context = context_of(*out);
    // Triton's named encodings (--encoding, --element-bits)
    std::optional<TritonEncoding> encoding;
    int element_bits = 0;
    if (out->encoding.given()) {
      if (to != Format::kTriton)
        fail(make_error("--encoding is for --to triton", 0, "encoding"), out->encoding.value);
      auto e = parse_triton_encoding(out->encoding.value);
      if (!e) fail(e.error(), out->encoding.value);
      encoding = *e;
    }
    if (out->element_bits.given()) {
      auto bits = parse_decimal_list(out->element_bits.value, "element-bits", 1, 64, true);
      if (!bits) fail(bits.error(), out->element_bits.value);
      if (bits->size() != 1 || !encoding)
        fail(make_error("--element-bits is one number, with --encoding", 0, "element-bits"),
             out->element_bits.value);
      element_bits = static_cast<int>(bits->front());
    }
    return for_each_layout(out->text, [&](const std::string& text) {
      const Layout layout = layout_arg(text);
      const auto shape = shape_arg(out->shape, layout);
      auto written = encoding ? export_triton_encoding(layout, shape, *encoding, element_bits)
                              : export_layout(to, layout, shape, context);
      if (!written) fail(written.error(), text);
      Json j = {{"text", *written},
                {"to", std::string(to_string(to))},
                {"layout", to_string(layout)},
                {"shape", shape}};
      if (!context.mesh.empty()) j["mesh"] = mesh_json(context);
      emit(j);
      return 0;
    });
  });
}

}  // namespace layoutscope::cli
