// `glimpse train validity`: the Glimpse validity ensemble, `glimpse train prior`: the
// Blueprint-generated prior H(Π, Θ), and `glimpse train acquisition`: the neural acquisition
// function (docs/glimpse.md), each trained on recorded spaces of several GPUs and written as a
// model file.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "commands.h"
#include "format.h"
#include "glimpse/clblast_best.h"
#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"
#include "glimpse/hardware.h"
#include "glimpse/model_zoo.h"
#include "glimpse/ops.h"
#include "glimpse/perf_corpus.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/perf_training.h"
#include "glimpse/prior_generator.h"
#include "glimpse/validity_ensemble.h"
#include "glimpse/xgb_perf_model.h"
#include "perf_train_flags.h"
namespace glimpse::cli {
namespace {

struct TrainValidityFlags {
  std::vector<std::string> spaces;
  std::vector<std::string> exclude;
  std::string out_path;
  std::string blueprint_path;  // empty: the installed Blueprint
  std::string table_path;      // empty: the installed GPU table
  ValidityEnsembleOptions options;
};

// The command line that remakes the model, for its "made_by" field.
std::string CommandLine(const TrainValidityFlags& flags) {
  std::string line = "glimpse train validity --spaces";
  for (const std::string& s : flags.spaces) line += " " + s;
  for (const std::string& d : flags.exclude) line += " --exclude-device '" + d + "'";
  line += fmt::format(" --tau {:g}", flags.options.tau);
  if (flags.options.derived_features) line += " --derived-features";
  if (flags.options.abstain_uninformative) line += " --abstain-uninformative";
  line += fmt::format(" --ridge-lambda {:g}", flags.options.ridge_lambda);
  line += fmt::format(" --false-rejection-weight {:g}", flags.options.false_rejection_weight);
  if (!flags.options.clamp_to_training) line += " --no-clamp";
  if (!flags.blueprint_path.empty()) line += " --blueprint " + flags.blueprint_path;
  if (!flags.table_path.empty()) line += " --table " + flags.table_path;
  return line + " --out " + flags.out_path;
}

std::string Percent(int64_t part, int64_t whole) {
  return whole ? fmt::format("{} ({:.1f}%)", part, 100.0 * part / whole) : std::to_string(part);
}

void RunTrainValidity(const TrainValidityFlags& flags) {
  std::optional<GpuTable> table_storage;
  if (!flags.table_path.empty()) table_storage = GpuTable::Load(flags.table_path);
  const GpuTable& table = table_storage ? *table_storage : GpuTable::Default();
  std::optional<Blueprint> blueprint_storage;
  if (!flags.blueprint_path.empty()) blueprint_storage = Blueprint::Load(flags.blueprint_path);
  const Blueprint& blueprint = blueprint_storage ? *blueprint_storage : Blueprint::Default();

  LoadedTrainingSpaces loaded = LoadValidityTrainingSpaces(flags.spaces, flags.exclude, table);
  for (const std::string& line : loaded.skipped) std::cout << "skipped " << line << "\n";
  ValidityEnsembleModel model =
      ValidityEnsembleModel::Train(loaded.spaces, blueprint, flags.options);
  model.set_made_by(CommandLine(flags));

  for (const KernelValidityModel& kernel : model.kernels()) {
    std::cout << fmt::format("\n{} ({} GPUs): predictors\n", kernel.name, kernel.training.size());
    Table predictors({"feature", "scale", "invalid", "mean bal. acc.", "note"});
    predictors.AlignLeft({"feature", "scale", "invalid", "note"});
    for (const KnobPredictor& p : kernel.predictors) {
      predictors.AddRow({p.feature, FeatureScaleName(p.scale), ThresholdDirectionName(p.direction),
                         fmt::format("{:.3f}", p.mean_balanced_accuracy), p.note});
    }
    predictors.Print(std::cout);
    std::cout << fmt::format("\n{}: the trained ensemble on its training spaces (tau {:g})\n",
                             kernel.name, model.options().tau);
    Table rows(
        {"GPU", "failures", "failures rejected", "valid", "valid rejected", "top 1% rejected"});
    rows.AlignLeft({"GPU"});
    for (const ValidityTrainingSpace& s : loaded.spaces) {
      const KernelValidityModel* found = model.Find(s.name, s.recorded->space);
      if (found != &kernel) continue;
      ValidityEnsemble ensemble = model.ForSpace(s.name, s.recorded->space, s.gpu, blueprint);
      ValidityEvaluation e = EvaluateEnsemble(ensemble, *s.recorded);
      rows.AddRow({s.gpu.name, std::to_string(e.failures), Percent(e.failures_rejected, e.failures),
                   std::to_string(e.valid), Percent(e.valid_rejected, e.valid),
                   Percent(e.top_rejected, e.top)});
    }
    rows.Print(std::cout);
  }
  model.Save(flags.out_path);
  std::cout << fmt::format("\nwrote {} ({} kernel spaces)\n", flags.out_path,
                           model.kernels().size());
}

#ifndef GLIMPSE_WITHOUT_TORCH  // GLIMPSE_WITH_TORCH=OFF: no libtorch, so no network training

// ---- glimpse train prior

struct TrainPriorFlags {
  std::vector<std::string> spaces;
  std::vector<std::string> exclude;
  std::vector<std::string> exclude_architectures, exclude_vendors;
  std::string clblast_path;  // empty: no CLBlast examples
  std::string clblast_space = "gemm";
  ClblastPriorOptions clblast;
  std::string out_path;
  std::string blueprint_path;
  std::string table_path;
  PriorTrainingOptions options;
  int first = 10;  // initial configurations judged per training space
};

std::string CommandLine(const TrainPriorFlags& flags) {
  std::string line = "glimpse train prior --spaces";
  for (const std::string& s : flags.spaces) line += " " + s;
  for (const std::string& d : flags.exclude) line += " --exclude-device '" + d + "'";
  for (const std::string& a : flags.exclude_architectures) {
    line += " --exclude-architecture '" + a + "'";
  }
  for (const std::string& v : flags.exclude_vendors) line += " --exclude-vendor '" + v + "'";
  if (!flags.clblast_path.empty()) {
    line += fmt::format(" --clblast {} --clblast-space {} --clblast-smoothing {:g}",
                        flags.clblast_path, flags.clblast_space, flags.clblast.smoothing);
  }
  const PriorTrainingOptions& o = flags.options;
  line += fmt::format(" --top-fraction {:g} --epochs {} --lr {:g} --weight-decay {:g}",
                      o.top_fraction, o.epochs, o.learning_rate, o.weight_decay);
  line += fmt::format(" --hidden {} --embedding {} --seed {}", o.hidden, o.embedding, o.seed);
  if (!flags.blueprint_path.empty()) line += " --blueprint " + flags.blueprint_path;
  if (!flags.table_path.empty()) line += " --table " + flags.table_path;
  return line + " --out " + flags.out_path;
}

void RunTrainPrior(const TrainPriorFlags& flags) {
  if (flags.first < 1) throw Error(fmt::format("--first {}: must be ≥ 1", flags.first));
  std::optional<GpuTable> table_storage;
  if (!flags.table_path.empty()) table_storage = GpuTable::Load(flags.table_path);
  const GpuTable& table = table_storage ? *table_storage : GpuTable::Default();
  std::optional<Blueprint> blueprint_storage;
  if (!flags.blueprint_path.empty()) blueprint_storage = Blueprint::Load(flags.blueprint_path);
  const Blueprint& blueprint = blueprint_storage ? *blueprint_storage : Blueprint::Default();

  LoadedTrainingSpaces loaded = LoadValidityTrainingSpaces(flags.spaces, flags.exclude, table);
  // What no example may come from: the excluded GPUs, architectures and vendors.
  std::set<std::string> excluded_gpus;
  for (const std::string& name : flags.exclude) excluded_gpus.insert(table.Lookup(name).name);
  const std::set<std::string> excluded_architectures(flags.exclude_architectures.begin(),
                                                     flags.exclude_architectures.end());
  const std::set<std::string> excluded_vendors(flags.exclude_vendors.begin(),
                                               flags.exclude_vendors.end());
  auto keep = [&](const GpuSpec& gpu) {
    return excluded_gpus.count(gpu.name) == 0 &&
           excluded_architectures.count(gpu.architecture) == 0 &&
           excluded_vendors.count(GpuVendorName(gpu.vendor)) == 0;
  };
  std::vector<std::string> skipped = loaded.skipped;
  std::vector<ValidityTrainingSpace> kept;
  for (ValidityTrainingSpace& s : loaded.spaces) {
    if (keep(s.gpu)) {
      kept.push_back(std::move(s));
    } else {
      skipped.push_back(s.recorded->source_path + ": " + s.gpu.name + " is excluded (" +
                        s.gpu.architecture + ", " + GpuVendorName(s.gpu.vendor) + ")");
    }
  }
  loaded.spaces = std::move(kept);
  std::vector<PriorTrainingExample> examples =
      MakePriorExamples(loaded.spaces, blueprint, flags.options.top_fraction, &skipped);
  size_t clblast_examples = 0;
  if (!flags.clblast_path.empty()) {
    auto it =
        std::find_if(loaded.spaces.begin(), loaded.spaces.end(),
                     [&](const ValidityTrainingSpace& s) { return s.name == flags.clblast_space; });
    if (it == loaded.spaces.end()) {
      throw Error("--clblast: no recorded space of the kernel '" + flags.clblast_space +
                  "' among --spaces (after exclusions); its knobs define the CLBlast examples "
                  "(--clblast-space names the kernel)");
    }
    std::vector<PriorTrainingExample> more = MakeClblastPriorExamples(
        LoadClblastBest(flags.clblast_path), it->recorded->space, flags.clblast_space, blueprint,
        table, keep, flags.clblast, &skipped);
    clblast_examples = more.size();
    for (PriorTrainingExample& e : more) examples.push_back(std::move(e));
  }
  for (const std::string& line : skipped) std::cout << "skipped " << line << "\n";
  if (!flags.clblast_path.empty()) {
    std::cout << fmt::format("CLBlast: {} examples of '{}' ({} records, one per GPU)\n",
                             clblast_examples, flags.clblast_space, flags.clblast.kernel);
  }
  PriorTrainingReport report;
  PriorGenerator model = PriorGenerator::Train(examples, flags.options, &report);
  model.set_made_by(CommandLine(flags));
  model.set_blueprint_training_gpus(blueprint.training_gpus());
  std::cout << fmt::format(
      "trained on {} spaces: cross-entropy {:.3f} → {:.3f} nats per knob, {} epochs, {:.1f} s\n",
      examples.size(), report.initial_loss, report.final_loss, flags.options.epochs,
      report.seconds);

  std::cout << fmt::format(
      "\nThe prior's first initial configurations on the training spaces (time_opt / time of the "
      "best of the first n; random: the expected best of n distinct recorded configurations)\n");
  int first = flags.first;
  Table rows({"kernel", "GPU", "top configs", "KL (nats/knob)", "best of 1",
              fmt::format("best of {}", first), fmt::format("random {}", first)});
  rows.AlignLeft({"kernel", "GPU"});
  for (size_t i = 0; i < loaded.spaces.size(); ++i) {
    const ValidityTrainingSpace& s = loaded.spaces[i];
    const RecordedSpace& recorded = *s.recorded;
    auto it = std::find_if(examples.begin(), examples.end(), [&](const PriorTrainingExample& e) {
      return e.path == recorded.source_path;
    });
    if (it == examples.end()) continue;
    const PriorTrainingReport::Example& r = report.examples[it - examples.begin()];
    auto recorded_only = [&](const Config& c) {
      return recorded.entries.count(recorded.space.ToDenseIndex(c)) > 0;
    };
    std::vector<Config> initial = model.InitialConfigs(recorded.space, it->task, it->blueprint,
                                                       static_cast<size_t>(first), recorded_only);
    FirstSamplesQuality q = ScoreFirstSamples(recorded, initial, {1, first});
    rows.AddRow({it->name, s.gpu.name, std::to_string(it->top_count),
                 fmt::format("{:.3f}", r.cross_entropy - r.target_entropy),
                 fmt::format("{:.3f}", q.prior[0]), fmt::format("{:.3f}", q.prior[1]),
                 fmt::format("{:.3f}", q.random[1])});
  }
  rows.Print(std::cout);
  model.Save(flags.out_path);
  std::cout << fmt::format("\nwrote {} ({} training spaces)\n", flags.out_path,
                           model.training().size());
}

void AddTrainPrior(CLI::App& train) {
  auto flags = std::make_shared<TrainPriorFlags>();
  CLI::App* prior = train.add_subcommand(
      "prior",
      "The prior generator H(Π, Θ): per-knob distributions of the best configurations, generated "
      "from the task and the GPU's Blueprint, trained on recorded spaces of several GPUs");
  prior
      ->add_option("--spaces", flags->spaces,
                   "recorded spaces (Kernel Tuner caches or T4 files), or folders holding them; "
                   "a space's kernel is its folder's name, its GPU the name in the file or its "
                   "file name")
      ->required()
      ->expected(1, -1);
  prior->add_option("--exclude-device", flags->exclude,
                    "leave out the spaces of this GPU (any name `glimpse hw show` knows)");
  prior
      ->add_option("--top-fraction", flags->options.top_fraction,
                   "the target of a space is the distribution of each knob's value over this "
                   "fraction of its fastest ok configurations (at least one)")
      ->default_str("0.02");
  prior->add_option("--epochs", flags->options.epochs, "full-batch Adam steps")->default_str("600");
  prior->add_option("--lr", flags->options.learning_rate, "Adam's learning rate")
      ->default_str("0.003");
  prior->add_option("--weight-decay", flags->options.weight_decay, "Adam's L2 penalty")
      ->default_str("0.0001");
  prior->add_option("--hidden", flags->options.hidden, "hidden width of the MLPs")
      ->default_str("32");
  prior
      ->add_option("--embedding", flags->options.embedding, "length of the generated weight vector")
      ->default_str("16");
  prior->add_option("--seed", flags->options.seed, "seed of the initial weights")->default_str("0");
  prior
      ->add_option("--first", flags->first,
                   "judge the best of this many initial configurations per training space")
      ->default_str("10");
  prior->add_option("--exclude-architecture", flags->exclude_architectures,
                    "leave out the spaces and CLBlast records of every GPU of this architecture "
                    "(as `glimpse hw show` names it: Ampere, \"CDNA 2\", …)");
  prior->add_option("--exclude-vendor", flags->exclude_vendors,
                    "leave out the spaces and CLBlast records of every GPU of this vendor "
                    "(nvidia, amd)");
  prior->add_option("--clblast", flags->clblast_path,
                    "also train on CLBlast's best Xgemm configuration of every GPU the table "
                    "knows (a clblast_best file, e.g. ../shared/datasets/clblast_best/"
                    "clblast_best_fp32.json.gz), as examples of the kernel --clblast-space");
  prior
      ->add_option("--clblast-space", flags->clblast_space,
                   "the recorded kernel whose knobs CLBlast's Xgemm records are values of")
      ->default_str("gemm");
  prior
      ->add_option("--clblast-smoothing", flags->clblast.smoothing,
                   "a CLBlast example's target per knob: (1 − s) · its value + s · uniform")
      ->default_str("0.5")
      ->check(CLI::Range(0.0, 1.0));
  prior->add_option("--blueprint", flags->blueprint_path,
                    "Blueprint model (default: data/hardware/blueprint.json)");
  prior->add_option("--table", flags->table_path,
                    "GPU table file (default: data/hardware/gpus.json)");
  prior->add_option("--out", flags->out_path, "model file to write")->required();
  prior->callback([flags] { RunTrainPrior(*flags); });
}

// ---- glimpse train acquisition

struct TrainAcquisitionFlags {
  std::vector<std::string> spaces;
  std::vector<std::string> exclude;
  std::string prior_path;     // empty: the shipped model when present; "none": off
  std::string validity_path;  // likewise
  std::string out_path;
  AcquisitionTrainingOptions options;
};

std::string CommandLine(const TrainAcquisitionFlags& flags) {
  std::string line = "glimpse train acquisition --spaces";
  for (const std::string& s : flags.spaces) line += " " + s;
  for (const std::string& d : flags.exclude) line += " --exclude-device '" + d + "'";
  if (!flags.prior_path.empty()) line += " --prior " + flags.prior_path;
  if (!flags.validity_path.empty()) line += " --validity " + flags.validity_path;
  const AcquisitionTrainingOptions& o = flags.options;
  line += fmt::format(
      " --iterations {} --episodes {} --episodes-per-space {} --episode-budget {} --batch-size {}"
      " --hidden {} --lr {:g} --entropy-bonus {:g} --seed {}",
      o.iterations, o.episodes_per_iteration, o.episodes_per_space, o.episode_budget, o.batch_size,
      o.hidden, o.learning_rate, o.entropy_bonus, o.seed);
  return line + " --out " + flags.out_path;
}

// The model file a --prior/--validity value names: "" for none. An empty value is the shipped
// file when it exists; `shipped` says that it was.
std::string ResolveModel(const std::string& value, const std::string& name, bool* shipped) {
  *shipped = false;
  if (value == "none") return "";
  if (!value.empty()) return value;
  std::string path = GlimpseDataDir() + "/models/" + name + ".json";
  if (!std::filesystem::exists(path)) return "";
  *shipped = true;
  return path;
}

void RunTrainAcquisition(const TrainAcquisitionFlags& flags) {
  const GpuTable& table = GpuTable::Default();
  const Blueprint& blueprint = Blueprint::Default();
  LoadedTrainingSpaces loaded = LoadValidityTrainingSpaces(flags.spaces, flags.exclude, table);
  for (const std::string& line : loaded.skipped) std::cout << "skipped " << line << "\n";

  bool prior_shipped = false, validity_shipped = false;
  std::string prior_path = ResolveModel(flags.prior_path, "prior", &prior_shipped);
  std::string validity_path = ResolveModel(flags.validity_path, "validity", &validity_shipped);
  if (!flags.exclude.empty() && (prior_shipped || validity_shipped)) {
    std::cerr << fmt::format(
        "warning: the shipped {} model{} saw the excluded GPU; pass models trained with the same "
        "--exclude-device (or 'none') for a held-out evaluation\n",
        prior_shipped && validity_shipped ? "prior and validity"
                                          : (prior_shipped ? "prior" : "validity"),
        prior_shipped && validity_shipped ? "s" : "");
  }
  std::shared_ptr<const PriorGenerator> prior;
  if (!prior_path.empty()) {
    prior = std::make_shared<PriorGenerator>(PriorGenerator::Load(prior_path));
  }
  std::shared_ptr<const ValidityEnsembleModel> validity;
  if (!validity_path.empty()) {
    validity = std::make_shared<ValidityEnsembleModel>(ValidityEnsembleModel::Load(validity_path));
  }
  std::cout << fmt::format("training on {} spaces; prior: {}; validity: {}\n", loaded.spaces.size(),
                           prior_path.empty() ? "none" : prior_path,
                           validity_path.empty() ? "none" : validity_path);

  AcquisitionTrainingReport report;
  AcquisitionNetwork model = TrainAcquisition(loaded.spaces, blueprint, prior, validity,
                                              flags.options, &report, &std::cerr);
  model.set_made_by(CommandLine(flags));
  model.training_info()["prior"] = prior_path.empty() ? "none" : prior_path;
  model.training_info()["validity"] = validity_path.empty() ? "none" : validity_path;
  const std::vector<double>& curve = report.mean_return;
  if (!curve.empty()) {
    // The mean of the first and last few iterations: one iteration's episodes are too few to
    // compare alone.
    size_t window = std::max<size_t>(1, curve.size() / 5);
    double first = 0, last = 0;
    for (size_t i = 0; i < window; ++i) {
      first += curve[i] / window;
      last += curve[curve.size() - 1 - i] / window;
    }
    std::cout << fmt::format(
        "mean return (0 = the optimum from the first decision on): first {} iterations {:.2f}, "
        "last {} {:.2f}; {} iterations in {:.1f} s\n",
        window, first, window, last, curve.size(), report.seconds);
  }
  model.Save(flags.out_path);
  std::cout << fmt::format("\nwrote {} ({} training spaces)\n", flags.out_path,
                           model.training_info().at("spaces").size());
}

void AddTrainAcquisition(CLI::App& train) {
  auto flags = std::make_shared<TrainAcquisitionFlags>();
  CLI::App* acq = train.add_subcommand(
      "acquisition",
      "The neural acquisition function: trained by reinforcement learning on tuning episodes of "
      "the Glimpse tuner replaying recorded spaces of several GPUs");
  acq->add_option("--spaces", flags->spaces,
                  "recorded spaces (Kernel Tuner caches or T4 files), or folders holding them; "
                  "a space's kernel is its folder's name, its GPU the name in the file or its "
                  "file name")
      ->required()
      ->expected(1, -1);
  acq->add_option("--exclude-device", flags->exclude,
                  "leave out the spaces of this GPU (any name `glimpse hw show` knows)");
  acq->add_option("--prior", flags->prior_path,
                  "prior model of the episodes' tuner, or 'none' (default: data/models/prior.json "
                  "when present)");
  acq->add_option("--validity", flags->validity_path,
                  "validity model of the episodes' tuner, or 'none' (default: "
                  "data/models/validity.json when present)");
  acq->add_option("--iterations", flags->options.iterations, "policy updates")->default_str("150");
  acq->add_option("--episodes", flags->options.episodes_per_iteration,
                  "tuning episodes per policy update")
      ->default_str("12");
  acq->add_option("--episodes-per-space", flags->options.episodes_per_space,
                  "episodes in a row on one space (they share a baseline; divides --episodes)")
      ->default_str("4");
  acq->add_option("--episode-budget", flags->options.episode_budget,
                  "measurements per episode (the T of t/T)")
      ->default_str("64");
  acq->add_option("--batch-size", flags->options.batch_size,
                  "measurements per tuner batch in an episode")
      ->default_str("16");
  acq->add_option("--hidden", flags->options.hidden, "hidden width of the MLP")->default_str("32");
  acq->add_option("--lr", flags->options.learning_rate, "Adam's learning rate")
      ->default_str("0.003");
  acq->add_option("--entropy-bonus", flags->options.entropy_bonus,
                  "weight of the policy's entropy in the loss")
      ->default_str("0.01");
  acq->add_option("--seed", flags->options.seed, "seed of the weights and the episodes")
      ->default_str("0");
  acq->add_option("--out", flags->out_path, "model file to write")->required();
  acq->callback([flags] { RunTrainAcquisition(*flags); });
}

// `glimpse train perf-model`: the learned performance model (docs/perf-model.md "The model"), or
// with --model xgb XGBoost on loop features (glimpse/xgb_perf_model.h; docs/perf-tuning.md "XGB
// with transfer from the corpus").
struct TrainPerfModelFlags {
  std::string corpus_path;
  std::string architecture = "graphsage";
  std::string rank_loss = "logistic";
  std::vector<std::string> exclude_models;
  std::vector<std::string> exclude_operators;
  std::string out_path;
  PerfModelTrainOptions options;
  // graphsage/lstm: what the network learns, ln time or ln(time / the roofline's estimate on
  // roofline_profile).
  std::string target = kPerfModelLogTime;
  std::string roofline_profile;
  XgbPerfOptions xgb;                // --model xgb (its seed is options.seed)
  std::string xgb_roofline_profile;  // --model xgb: the roofline's terms as features, this profile
};

// The flags of one kind of model only, to refuse them with the other.
const char* const kNetworkFlags[] = {"--epochs",    "--batch-size",       "--hidden",
                                     "--hops",      "--readout-hidden",   "--lr",
                                     "--rank-loss", "--rank-loss-weight", "--validation-fraction",
                                     "--patience",  "--target",           "--roofline-profile"};
const char* const kXgbFlags[] = {"--xgb-rounds",    "--xgb-eta",
                                 "--xgb-max-depth", "--xgb-threads",
                                 "--xgb-target",    "--xgb-roofline-profile",
                                 "--xgb-schedule",  "--xgb-subsample",
                                 "--xgb-colsample", "--xgb-min-child-weight"};

// The sampling and leaf-size options, on the command line only where they differ from XGBoost's
// defaults, so that the made_by line of a default model reads as it always has.
std::string XgbRegularisation(const XgbPerfOptions& xgb) {
  const XgbPerfOptions defaults;
  std::string line;
  if (xgb.subsample != defaults.subsample)
    line += fmt::format(" --xgb-subsample {:g}", xgb.subsample);
  if (xgb.colsample_bytree != defaults.colsample_bytree) {
    line += fmt::format(" --xgb-colsample {:g}", xgb.colsample_bytree);
  }
  if (xgb.min_child_weight != defaults.min_child_weight) {
    line += fmt::format(" --xgb-min-child-weight {:g}", xgb.min_child_weight);
  }
  return line;
}

std::string Exclusions(const TrainPerfModelFlags& flags) {
  std::string line;
  for (const std::string& m : flags.exclude_models) line += " --exclude-model " + m;
  for (const std::string& op : flags.exclude_operators) line += " --exclude-operator '" + op + "'";
  return line;
}

std::string CommandLine(const TrainPerfModelFlags& flags) {
  if (flags.architecture == "xgb") {
    return fmt::format(
               "glimpse train perf-model --corpus {} --model xgb --xgb-rounds {} --xgb-eta {:g} "
               "--xgb-max-depth {} --xgb-target {} --seed {}",
               flags.corpus_path, flags.xgb.rounds, flags.xgb.eta, flags.xgb.max_depth,
               flags.xgb.target, flags.options.seed) +
           (flags.xgb_roofline_profile.empty()
                ? std::string()
                : " --xgb-roofline-profile " + flags.xgb_roofline_profile) +
           (flags.xgb.schedule ? " --xgb-schedule" : "") + XgbRegularisation(flags.xgb) +
           Exclusions(flags) + " --out " + flags.out_path;
  }
  const PerfModelTrainOptions& o = flags.options;
  std::string line = fmt::format(
      "glimpse train perf-model --corpus {} --model {} --epochs {} --batch-size {} --hidden {} "
      "--hops {} --readout-hidden {} --lr {:g} --rank-loss {} --rank-loss-weight {:g} "
      "--validation-fraction {:g} --patience {} --seed {}",
      flags.corpus_path, flags.architecture, o.epochs, o.batch_size, o.shape.hidden, o.shape.hops,
      o.shape.readout_hidden, o.learning_rate, flags.rank_loss, o.rank_loss_weight,
      o.validation_fraction, o.patience, o.seed);
  // A network of ln time keeps the command line it always had.
  if (flags.target != kPerfModelLogTime) {
    line += " --target " + flags.target + " --roofline-profile " + flags.roofline_profile;
  }
  return line + Exclusions(flags) + " --out " + flags.out_path;
}

// The corpus without the excluded records: a record leaves with its operator, or when every
// model it belongs to is excluded (a record of no model stays).
PerfCorpus TrainingCorpus(const TrainPerfModelFlags& flags, size_t* total) {
  std::set<std::string> excluded_models, excluded_operators;
  for (const std::string& m : flags.exclude_models) {
    excluded_models.insert(CanonicalZooModelName(m));
  }
  for (const std::string& op : flags.exclude_operators) {
    excluded_operators.insert(OperatorToString(ParseOperator(op)));
  }
  PerfCorpus corpus = LoadPerfCorpusFiles(SplitCommaList(flags.corpus_path));
  *total = corpus.records.size();
  std::erase_if(corpus.records, [&](const PerfCorpusRecord& r) {
    if (excluded_operators.count(r.op)) return true;
    if (excluded_models.empty() || r.models.empty()) return false;
    return std::all_of(r.models.begin(), r.models.end(),
                       [&](const std::string& m) { return excluded_models.count(m) > 0; });
  });
  return corpus;
}

// What both kinds of file record about their training data, in their "training" object.
void RecordTrainingData(const TrainPerfModelFlags& flags, const PerfCorpus& corpus, Json& info) {
  info["corpus"] = flags.corpus_path;
  // The machine whose times the model learned: `glimpse tune --cost-model` warns on another one.
  info["machine"] = corpus.header.value("machine", Json());
  info["excluded_models"] = flags.exclude_models;
  info["excluded_operators"] = flags.exclude_operators;
}

void RunTrainXgbPerfModel(TrainPerfModelFlags flags) {
  flags.xgb.seed = flags.options.seed;
  if (!flags.xgb_roofline_profile.empty()) {
    flags.xgb.roofline = LoadMachineProfile(flags.xgb_roofline_profile);
  }
  if (flags.xgb.target == "log-efficiency" && !flags.xgb.roofline) {
    throw Error(
        "--xgb-target log-efficiency learns times relative to the roofline's estimate: give "
        "--xgb-roofline-profile too (e.g. data/hardware/cpu_machine_profile_amd_epyc.json)");
  }
  if (flags.xgb.schedule && !flags.xgb.roofline) {
    throw Error(
        "--xgb-schedule reads the threads, lanes and registers of a machine profile: give "
        "--xgb-roofline-profile too (e.g. data/hardware/cpu_machine_profile_amd_epyc.json)");
  }
  size_t total = 0;
  const PerfCorpus corpus = TrainingCorpus(flags, &total);
  std::vector<const PerfCorpusRecord*> records;
  records.reserve(corpus.records.size());
  for (const PerfCorpusRecord& record : corpus.records) records.push_back(&record);
  std::cerr << fmt::format("{}: {} records, {} after exclusions; training xgb ({} rounds) …\n",
                           flags.corpus_path, total, corpus.records.size(), flags.xgb.rounds);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> skipped;
  XgbPerfModel model = XgbPerfModel::Train(records, flags.xgb, &skipped);
  for (const std::string& line : skipped) std::cerr << "skipped " << line << "\n";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  model.set_made_by(CommandLine(flags));
  RecordTrainingData(flags, corpus, model.training_info());
  model.training_info()["seconds"] = seconds;
  model.Save(flags.out_path);
  const Json& info = model.TrainingInfo();
  // A ranking's scores are not log times: it has no training MSE to show.
  const std::string fit =
      info.contains("train_log_mse")
          ? fmt::format("train ln-time MSE {:.4f}", info.at("train_log_mse").get<double>())
          : std::string("ranked within each operator");
  std::cout << fmt::format("trained xgb on {} examples of {} operators in {:.1f} s: {}\nwrote {}\n",
                           info.at("examples").get<size_t>(), info.at("operators").get<size_t>(),
                           seconds, fit, flags.out_path);
}

void RunTrainPerfModel(TrainPerfModelFlags flags) {
  if (flags.architecture != "graphsage" && flags.architecture != "lstm" &&
      flags.architecture != "xgb") {
    throw Error(fmt::format("unknown performance model '{}'; known: graphsage, lstm, xgb",
                            flags.architecture));
  }
  if (flags.architecture == "xgb") {
    RunTrainXgbPerfModel(std::move(flags));
    return;
  }
  flags.options.shape.architecture = ParsePerfModelArchitecture(flags.architecture);
  flags.options.rank_loss = ParsePerfRankLoss(flags.rank_loss);
  const bool relative = flags.target == kPerfModelLogEfficiency;
  if (relative && flags.roofline_profile.empty()) {
    throw Error(
        "--target log-efficiency learns times relative to the roofline's estimate: give "
        "--roofline-profile too (the corpus machine's, e.g. "
        "data/hardware/cpu_machine_profile_amd_epyc.json)");
  }
  if (!relative && !flags.roofline_profile.empty()) {
    throw Error(
        "--roofline-profile is what --target log-efficiency is relative to; with --target "
        "log-time the network does not read it");
  }
  std::optional<MachineProfile> profile;
  if (relative) profile = LoadMachineProfile(flags.roofline_profile);
  size_t total = 0;
  const PerfCorpus corpus = TrainingCorpus(flags, &total);
  std::vector<std::string> skipped;
  std::vector<PerfTrainingExample> examples;
  if (relative) {
    std::vector<const PerfCorpusRecord*> records;
    records.reserve(corpus.records.size());
    for (const PerfCorpusRecord& record : corpus.records) records.push_back(&record);
    examples = PerfTrainingExamples(records, &skipped, [&profile](const PerfCorpusRecord& r) {
      return LogRooflineEstimate(r, *profile);
    });
  } else {
    examples = PerfTrainingExamples(corpus, &skipped);
  }
  for (const std::string& line : skipped) std::cerr << "skipped " << line << "\n";
  std::cerr << fmt::format(
      "{}: {} records, {} after exclusions, {} examples (ok, rebuilt); training {} …\n",
      flags.corpus_path, total, corpus.records.size(), examples.size(), flags.architecture);
  PerfModelTrainReport report;
  PerfModel model = TrainPerfModel(examples, flags.options, &report, &std::cerr);
  if (relative) model.SetRelativeToRoofline(MachineProfileToJson(*profile));
  model.set_made_by(CommandLine(flags));
  RecordTrainingData(flags, corpus, model.training_info());
  model.Save(flags.out_path);
  const PerfModelEpoch& best = report.epochs.at(report.best_epoch);
  std::cout << fmt::format(
      "trained {} on {} examples of {} operators (validation: {} of {}) in {:.1f} s\n"
      "best epoch {} of {}: train ln-time MSE {:.4f}, validation ln-time MSE {}\n"
      "wrote {}\n",
      flags.architecture, report.train_examples, report.train_groups, report.validation_examples,
      report.validation_groups, report.seconds, report.best_epoch + 1, report.epochs.size(),
      best.train_log_mse,
      report.validation_examples ? fmt::format("{:.4f}", best.validation_log_mse) : "-",
      flags.out_path);
}

void AddTrainPerfModel(CLI::App& train) {
  auto flags = std::make_shared<TrainPerfModelFlags>();
  PerfModelTrainOptions& o = flags->options;
  CLI::App* cmd = train.add_subcommand(
      "perf-model",
      "The learned performance model: GraphSAGE (or the LSTM baseline) over program graphs, or "
      "XGBoost on loop features (--model xgb), trained on a measured corpus to predict ln(run "
      "time)");
  cmd->add_option("--corpus", flags->corpus_path,
                  "performance corpus (glimpse corpus export); several files read as one: A,B")
      ->required();
  cmd->add_option("--model", flags->architecture,
                  "graphsage, lstm, or xgb (XGBoost on loop features: AutoTVM's transfer model, "
                  "for glimpse tune --cost-model)")
      ->default_str("graphsage");
  AddPerfTrainFlags(cmd, o, flags->rank_loss, "graphsage/lstm: ");
  cmd->add_option("--target", flags->target,
                  "graphsage/lstm: log-time (the paper's: ln time) or log-efficiency (ln(time / "
                  "the roofline's estimate on --roofline-profile); the file keeps the profile "
                  "and its predictions add the estimate back)")
      ->check(CLI::IsMember({kPerfModelLogTime, kPerfModelLogEfficiency}))
      ->default_str(kPerfModelLogTime);
  cmd->add_option("--roofline-profile", flags->roofline_profile,
                  "graphsage/lstm with --target log-efficiency: the machine profile of the "
                  "roofline's estimate (the corpus machine's, e.g. "
                  "data/hardware/cpu_machine_profile_amd_epyc.json)");
  cmd->add_option("--xgb-rounds", flags->xgb.rounds, "xgb: boosting rounds")->default_str("300");
  cmd->add_option("--xgb-eta", flags->xgb.eta, "xgb: learning rate")->default_str("0.1");
  cmd->add_option("--xgb-target", flags->xgb.target,
                  "xgb: log-time (regression of ln time), rank (the order within each "
                  "operator; the file's times are then right only up to a factor per operator) "
                  "or log-efficiency (regression of ln(time / the roofline's estimate on "
                  "--xgb-roofline-profile), the estimate added back to each prediction)")
      ->check(CLI::IsMember({"log-time", "rank", "log-efficiency"}))
      ->default_str("log-time");
  cmd->add_option("--xgb-max-depth", flags->xgb.max_depth, "xgb: depth of each tree")
      ->default_str("6");
  cmd->add_option("--xgb-subsample", flags->xgb.subsample,
                  "xgb: share of the rows each tree samples, in (0, 1]")
      ->check(CLI::Range(1e-6, 1.0))
      ->default_str("1");
  cmd->add_option("--xgb-colsample", flags->xgb.colsample_bytree,
                  "xgb: share of the feature columns each tree samples, in (0, 1]")
      ->check(CLI::Range(1e-6, 1.0))
      ->default_str("1");
  cmd->add_option("--xgb-min-child-weight", flags->xgb.min_child_weight,
                  "xgb: least hessian weight (rows, for squared error) in a leaf")
      ->check(CLI::NonNegativeNumber)
      ->default_str("1");
  cmd->add_option("--xgb-roofline-profile", flags->xgb_roofline_profile,
                  "xgb: also give the trees the roofline's estimate of each program on this "
                  "machine profile (the corpus machine's, e.g. data/hardware/"
                  "cpu_machine_profile_amd_epyc.json); the file keeps the profile");
  cmd->add_flag("--xgb-schedule", flags->xgb.schedule,
                "xgb: also give the trees the schedule's ratios on the --xgb-roofline-profile "
                "machine (thread and lane use, FMAs per loop iteration, register tile, copies "
                "and stores per multiply-add: docs/perf-eval.md)");
  cmd->add_option("--xgb-threads", flags->xgb.num_threads,
                  "xgb: XGBoost's threads while training (0: every hardware thread)")
      ->default_str("1");
  cmd->add_option("--seed", o.seed,
                  "seed of the weights, the split and the batches (xgb: XGBoost's)")
      ->default_str("0");
  cmd->add_option("--exclude-model", flags->exclude_models,
                  "leave out records whose zoo models are all excluded (repeatable)");
  cmd->add_option("--exclude-operator", flags->exclude_operators,
                  "leave out this operator's records (repeatable)");
  cmd->add_option("--out", flags->out_path, "model file to write")->required();
  cmd->callback([flags, cmd] {
    // A flag of the other kind of model would be ignored silently: refuse it.
    const bool xgb = flags->architecture == "xgb";
    auto refuse = [&](const char* flag, const char* kind) {
      throw Error(
          fmt::format("{} is a flag of {}; --model is '{}'", flag, kind, flags->architecture));
    };
    if (xgb) {
      for (const char* flag : kNetworkFlags) {
        if (cmd->count(flag) > 0) refuse(flag, "--model graphsage and lstm");
      }
    } else {
      for (const char* flag : kXgbFlags) {
        if (cmd->count(flag) > 0) refuse(flag, "--model xgb");
      }
    }
    RunTrainPerfModel(*flags);
  });
}

#endif  // GLIMPSE_WITHOUT_TORCH

}  // namespace

void AddTrainCommand(CLI::App& app) {
  auto flags = std::make_shared<TrainValidityFlags>();
  CLI::App* train = app.add_subcommand(
      "train", "Train the Glimpse tuner's hardware-aware models and the learned performance model");
  train->require_subcommand(1);
  CLI::App* validity = train->add_subcommand(
      "validity",
      "The validity ensemble: per-knob thresholds generated from the Blueprint, trained on the "
      "failures recorded on several GPUs");
  validity
      ->add_option("--spaces", flags->spaces,
                   "recorded spaces (Kernel Tuner caches or T4 files), or folders holding them; "
                   "a space's kernel is its folder's name, its GPU the name in the file or its "
                   "file name")
      ->required()
      ->expected(1, -1);
  validity->add_option("--exclude-device", flags->exclude,
                       "leave out the spaces of this GPU (any name `glimpse hw show` knows)");
  validity
      ->add_option("--tau", flags->options.tau,
                   "reject when more than this fraction of the predictors vote invalid")
      ->default_str("0.333");
  validity->add_flag("--derived-features", flags->options.derived_features,
                     "also train predictors on products of two knobs (kept when informative)");
  validity->add_flag("--abstain-uninformative", flags->options.abstain_uninformative,
                     "predictors that separate nothing do not vote (τ counts the others)");
  validity
      ->add_option("--ridge-lambda", flags->options.ridge_lambda,
                   "ridge penalty of the Blueprint → threshold generator")
      ->default_str("1");
  validity
      ->add_option("--false-rejection-weight", flags->options.false_rejection_weight,
                   "per-GPU thresholds maximise recall of failures − this × the fraction of "
                   "valid configurations rejected (1: balanced accuracy)")
      ->default_str("1");
  validity->add_flag("!--no-clamp", flags->options.clamp_to_training,
                     "do not clamp generated thresholds to the training GPUs' range");
  validity->add_option("--blueprint", flags->blueprint_path,
                       "Blueprint model (default: data/hardware/blueprint.json)");
  validity->add_option("--table", flags->table_path,
                       "GPU table file (default: data/hardware/gpus.json)");
  validity->add_option("--out", flags->out_path, "model file to write")->required();
  validity->callback([flags] { RunTrainValidity(*flags); });
#ifndef GLIMPSE_WITHOUT_TORCH
  AddTrainPrior(*train);
  AddTrainAcquisition(*train);
  AddTrainPerfModel(*train);
#endif
}

}  // namespace glimpse::cli
