# The project's compile definitions and warnings, for the main build and
# for sbagent's musl build (agent/musl/CMakeLists.txt): SB_VERSION_TEXT and
# SB_WERROR are the caller's.
add_compile_definitions(_GNU_SOURCE SB_VERSION="${SB_VERSION_TEXT}")
add_compile_options(-Wall -Wextra -Wshadow -Wstrict-prototypes
                    -Wmissing-prototypes -Wformat=2 -fno-common
                    # always errors: these are bugs, never a compiler's opinion
                    -Werror=implicit-function-declaration -Werror=format-security)
if(SB_WERROR)
  add_compile_options(-Werror)
endif()
