/*
 * kb-runner -- the child process that runs untrusted code (or the reference, when timing the
 * baseline) for a GPU stage: gpu/runner.c. Not meant to be started by hand: the stages spawn it
 * with the protocol pipes on fds 3 and 4 (lib/core/kb_msg.h). A KernelBench-format (.py) submission
 * runs in py/kbpy/runner.py instead, which calls the same code.
 */
#include "kb_runner.h"

int main(int argc, char **argv) { return kb_runner_main(argc, argv, NULL); }
