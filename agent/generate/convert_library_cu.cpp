// Writes the conversion library's CUDA C (codegen::library_builtin_source, convert_library.hpp) to the file
// named on the command line, so that the agent's build compiles the five kernels into the binary with nvcc.
//   convert_library_cu OUT.cu
#include <cstdio>
#include <fstream>
#include <string>

#include "convert_library.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: convert_library_cu OUT.cu\n");
    return 2;
  }
  const std::string text = layoutscope::codegen::library_builtin_source();
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "convert_library_cu: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
