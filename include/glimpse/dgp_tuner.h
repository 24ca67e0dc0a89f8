// glimpse/dgp_tuner.h — deep Gaussian-process transfer learning (the "dgp" strategy).
//
// After Sun et al., "Fast and Efficient DNN Deployment via Deep Gaussian Transfer Learning",
// ICCV 2021 (the DGP baseline of the Glimpse paper), as far as its abstract describes it: a deep
// Gaussian-process model is built on the historical records (TargetKnowledge::history), a tuning
// set for the new task is sampled under the model's guidance, the model is tuned on it by maximum
// a posteriori (MAP) estimation and then guides the search. docs/dgp.md lists where this
// implementation differs from the paper.
//   - The surrogate (src/model/deep_kernel.h) is a GP on learned features: a tanh network h maps a
//     configuration's encoding (src/model/config_encoding.h) to feature_width features and a
//     squared-exponential GP models the standardised log-time there. Failed measurements count as
//     the slowest successful time seen (of the history for the history, of the run for the run).
//   - Pretraining (with at least min_history_records history records): history_samples records
//     drawn at random; the network and the GP's hyperparameters maximise the GP's marginal
//     likelihood on minibatches of pretrain_batch records for pretrain_steps Adam steps, then the
//     GP is conditioned on all drawn records. Its posterior mean m(x) is the source model.
//   - The target model is y(x) = a·m(x) + b + f(h(x)) with the pretrained network and
//     hyperparameters, a = 1, b = 0; MAP adaptation maximises its marginal likelihood on the run's
//     observations (at most adapt_max_points, drawn at random) plus a Gaussian prior of precision
//     prior_precision centred on the pretrained parameters, for adapt_steps Adam steps, after the
//     tuning set and then every adapt_every observations; in between the GP is conditioned on
//     every observation.
//   - The tuning set: the first tuning_set_size proposals, the pretrained model's best predicted
//     among the candidates (tuning_random_fraction of them drawn at random instead; none by
//     default: the paper samples the tuning set under the model's guidance).
//   - Then every proposal maximises expected improvement (EI, margin `exploration` in standardised
//     log-time) over the candidates: pool_size random unvisited valid configurations plus every
//     unvisited neighbour of the local_top best observations.
//   - Without history (or too little): the tuning set is random, the network starts from its random
//     initialisation and the prior centres there (a plain deep-kernel GP tuner).
// Observed configurations (including ones this tuner never proposed) are never proposed again.
#pragma once

#include <memory>
#include <string>

#include "glimpse/json.h"
#include "glimpse/tuner.h"

namespace glimpse {

struct DgpTunerOptions {
  // The surrogate: hidden_layers tanh layers of hidden_width, then feature_width linear features.
  int hidden_width = 32;
  int hidden_layers = 2;
  int feature_width = 4;
  double learning_rate = 0.01;  // Adam's step, pretraining and adaptation

  // Pretraining on TargetKnowledge::history.
  int min_history_records = 100;  // fewer: no transfer
  int history_samples = 1024;     // records drawn for pretraining and the source posterior
  int pretrain_steps = 200;
  int pretrain_batch = 128;

  // The tuning set and the MAP adaptation.
  int tuning_set_size = 64;
  double tuning_random_fraction = 0.0;
  int adapt_every = 64;
  int adapt_steps = 50;
  int adapt_max_points = 256;
  double prior_precision = 1.0;  // 1/τ² of the prior N(θ_pretrained, τ²) on every parameter

  // The acquisition (expected improvement) and its candidates.
  double exploration = 0.0;  // EI's margin ξ, in standardised log-time
  int pool_size = 1000;
  int local_top = 8;

  // Keys: the field names above. Unknown keys and bad values are an Error naming "dgp", the key
  // and what is accepted.
  static DgpTunerOptions FromJson(const Json& options);
  void Validate() const;
};

// The DGP tuner; Name() is "dgp". Registered by RegisterModelTuners (glimpse/model_tuner.h).
std::unique_ptr<Tuner> MakeDgpTuner(const DgpTunerOptions& options = {});

}  // namespace glimpse
