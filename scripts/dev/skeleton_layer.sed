# SPDX-License-Identifier: Apache-2.0
# The skeleton search's move out of src/pc/ into src/skeleton/ (namespace cudag::skeleton,
# issue 54): old include paths and pc::-qualified names to the new ones. For files written
# against the old layout (a learner's new files, e.g. src/fci/):
#   sed -i -f scripts/dev/skeleton_layer.sed FILE...
# What sed cannot do, the compiler then names:
#  - a name used unqualified inside `namespace cudag::pc` needs `skeleton::` by hand;
#  - skeleton::write_checkpoint / read_checkpoint take the learner's checkpoint format
#    (io::CheckpointFormat) as their first argument (PC's: pc::checkpoint_format);
#  - "pc/result.hpp" becomes "skeleton/types.hpp" (LevelStats, LevelPlan, PairP,
#    PairPList, RecordRows, dense_pmax_limit): right for any file but PC's own, which keep
#    pc/result.hpp for PcResult and BootstrapTable (PcResult::dense_pmax_limit remains).
# pc::to_string(Resample), pc::resolve_test(PcConfig, Dataset) and everything else of PC
# (orientation, PcConfig, PcResult, run_pc, bootstrap, metrics, result file) stay in pc.

# ---- include paths (and paths in comments) ----------------------------------------------
s#\bpc/\(skeleton\|skeleton_engine\|engines\|engines_nocuda\|test_spec\|ci_tests\|merge\|level_results\|row_work\|progress\|checkpoint\)\.\(hpp\|cpp\)#skeleton/\1.\2#g
s#\bpc/result_layout\.\(hpp\|cpp\)#skeleton/layout.\1#g
s#\bpc/cpu/#skeleton/cpu/#g
s#"pc/result\.hpp"#"skeleton/types.hpp"#g
s#\bkernels/pc_registry\.cpp#kernels/skeleton_registry.cpp#g

# ---- namespaces -------------------------------------------------------------------------
s/\bpc::layout\b/skeleton::layout/g
s/\bpc::detail::\(LevelResults\|HostResults\|DeviceResidentResults\|LevelFrame\|row_runs\|to_entry_layout\)\b/skeleton::detail::\1/g

# ---- types.hpp --------------------------------------------------------------------------
s/\bpc::\(LevelPlan\|LevelStats\|PairP\|PairPList\|RecordRows\)\b/skeleton::\1/g
s/\bpc::PcResult::dense_pmax_limit\b/skeleton::dense_pmax_limit/g

# ---- skeleton.hpp, skeleton_engine.hpp ----------------------------------------------------
s/\bpc::\(SkeletonOptions\|LevelCallback\|SkeletonResult\|SkeletonState\|StoppedAfterLevel\|SkeletonHooks\|learn_skeleton\)\b/skeleton::\1/g
s/\bpc::\(TestPolicy\|Level0Output\|EntryFlags\|kTested\|kSeparated\|LevelOutput\|LevelBlock\|DeviceResults\|SkeletonEngine\)\b/skeleton::\1/g

# ---- merge.hpp, row_work.hpp, progress.hpp, checkpoint.hpp --------------------------------
s/\bpc::\(PmaxTable\|SepSetLog\|transfer_sepsets\|row_work\|Progress\|write_checkpoint\|read_checkpoint\)\b/skeleton::\1/g

# ---- engines.hpp (the engine registry) ----------------------------------------------------
s/\bpc::\(EngineArgs\|make_agreed\|EngineFactory\|EngineEntry\|cpu_engines\|cuda_engines\|engine_registry\|picks_gpu\|gpu_candidate\|make_engine\)\b/skeleton::\1/g

# ---- test_spec.hpp, ci_tests.hpp -----------------------------------------------------------
s/\bpc::\(Compat\|TestKind\|TestOptions\|TestSpec\|parse_test_kind\|parse_test\|is_discrete\|parse_dof\|validate_test\|make_ci_test\)\b/skeleton::\1/g
# to_string(Compat) and to_string(TestKind) moved; to_string(Resample) (pc/bootstrap.hpp) stays.
s/\bpc::to_string(\([^()]*[Rr]esample[^()]*\))/pc::to_string_STAYS(\1)/g
s/\bpc::to_string(/skeleton::to_string(/g
s/\bpc::to_string_STAYS(/pc::to_string(/g
# resolve_test(TestOptions, Dataset, alpha, Compat) moved; resolve_test(PcConfig, Dataset) stays.
s/\bpc::resolve_test(\([^()]*,[^()]*,[^()]*,\)/skeleton::resolve_test(\1/g

# ---- cpu/ (the CPU engines) -----------------------------------------------------------------
s/\bpc::\(CpuFisherEngine\|CpuDiscreteEngine\|CpuCmiKnnEngine\|CpuDsepEngine\|search_row\|level0_rows\|cmi_pc_test_id\|cmi_constant_note\)\b/skeleton::\1/g
