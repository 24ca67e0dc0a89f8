# How the @256 comparison was made (cpu_models_64.md, "MobileNet-v2 at 256 measurements"): the 12-03 seeded
# @64 database copied and continued to 256 with
#   glimpse tune --target cpu --model mobilenet_v2 --tuner xgb-rounds --budget 256 --seed 0 --template-seeds 4 --db mobilenet_v2_t256.db
# then this script (paths as on the machine it ran on); cpu_baselines was run a second time (baselines2) after a disturbed first peak.
set -e
cd /work/runs/mnv2_256
python3 /work/main/bench/cpu_remeasure_runs.py --run t64=/work/runs/dw2/mobilenet_v2_tseeds4.db --run t256=mobilenet_v2_t256.db --tasks /work/main/bench/configs/mobilenet_v2_cpu_tasks.txt --top 1 --passes 2 --bench /work/bin6/bench_cpu_templates --reference t64 --out mobilenet_v2_t256_remeasure.json > mobilenet_v2_t256_remeasure.md 2> remeasure.err
grep -v '^#' /work/main/bench/configs/mobilenet_v2_cpu_tasks.txt | sed -e 's/,relu6=1/,relu=1/' -e 's/,residual=1//' | awk '{print $1}' > ops.txt
/work/bin6/cpu_baselines --check --ops ops.txt --json mobilenet_v2_t256_baselines.json > baselines.log 2>&1
python3 /work/main/bench/cpu_remeasure_vs_baselines.py mobilenet_v2_t256_remeasure.json mobilenet_v2_t256_baselines.json --reference t64 > mobilenet_v2_t256_vs_onednn.md
echo done
