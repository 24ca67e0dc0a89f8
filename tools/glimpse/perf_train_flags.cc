#include "perf_train_flags.h"

namespace glimpse::cli {

void AddPerfTrainFlags(CLI::App* command, PerfModelTrainOptions& o, std::string& rank_loss,
                       const std::string& help_prefix) {
  auto help = [&](const char* text) { return help_prefix + text; };
  command->add_option("--epochs", o.epochs, help("passes over the training records"))
      ->default_str("40");
  command->add_option("--batch-size", o.batch_size, help("graphs per step"))->default_str("64");
  command->add_option("--hidden", o.shape.hidden, help("width of the node embeddings"))
      ->default_str("32");
  command->add_option("--hops", o.shape.hops, help("GraphSAGE's neighbourhood hops"))
      ->default_str("3");
  command
      ->add_option("--readout-hidden", o.shape.readout_hidden,
                   help("a ReLU layer of this width before the final linear one (0: linear "
                        "alone)"))
      ->default_str("0");
  command->add_option("--lr", o.learning_rate, help("Adam's learning rate"))->default_str("0.001");
  command->add_option("--rank-loss", rank_loss, help("hinge or logistic"))->default_str("logistic");
  command
      ->add_option("--rank-loss-weight", o.rank_loss_weight,
                   help("weight of the pairwise rank loss within an operator (0: squared error "
                        "alone)"))
      ->default_str("0.5");
  command
      ->add_option("--validation-fraction", o.validation_fraction,
                   help("fraction of the training operators held out for early stopping"))
      ->default_str("0.1");
  command
      ->add_option("--patience", o.patience,
                   help("epochs without a better validation error before stopping (0: never)"))
      ->default_str("10");
}

}  // namespace glimpse::cli
