"""Config validation: defaults filled in, and one clear line naming the key for every kind of bad input."""

from __future__ import annotations

import copy

import pytest
import yaml

from fairshare.pipeline.config import ConfigError, load_config, validate_config
from tests.conftest import REPO


@pytest.fixture(scope="module")
def default_config():
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


@pytest.mark.parametrize("profile", ["config.yaml", "test.yaml", "paper.yaml"])
def test_every_profile_validates(profile):
    files = [REPO / "config" / "config.yaml"] + ([REPO / "config" / profile] if profile != "config.yaml" else [])
    cfg = load_config(*files)
    assert cfg["data"]["raw_dir"] == "data/raw"
    assert isinstance(cfg["seed"], int)


def test_defaults_are_filled(default_config):
    cfg = validate_config({"partitions": [{"name": "x", "dataset": "digits", "scheme": "dirichlet", "clients": 3}]})
    assert cfg["partitions"][0]["alpha"] == 0.5 and cfg["data"]["allow_download"] is False


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (lambda c: c.update(sedd=1), "unknown config key 'sedd'"),
        (lambda c: c["data"].update(allow_download="yes"), "'data.allow_download'"),
        (lambda c: c.update(seed=-4), "'seed': value -4 is out of range"),
        (lambda c: c["partitions"][1].update(alpha=0), "'partitions.1.alpha'"),
        (lambda c: c["partitions"][0].update(scheme="bogus"), "'partitions.0.scheme': value 'bogus' is not allowed"),
        (lambda c: c.update(device="tpu"), "allowed values: 'auto', 'cpu', 'cuda'"),
        (lambda c: c["aequa"].update(p_min={"digits": 0.03}), "'aequa.p_min' is missing a required entry: 'default'"),
        (
            lambda c: c["aequa"].update(p_min={"default": 0.1, "digits": 1.5}),
            "'aequa.p_min.digits': value 1.5 is out of range",
        ),
        (lambda c: c["aequa"].update(p_min_ablation=0), "'aequa.p_min_ablation': value 0 is out of range"),
    ],
)
def test_bad_config_gives_one_line_naming_the_key(default_config, mutate, needle):
    cfg = copy.deepcopy(default_config)
    mutate(cfg)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    message = str(info.value)
    assert needle in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "mutate, key, fix",
    [
        (lambda c: c.update(seed=3.0), "seed", "write 3, not 3.0"),
        (lambda c: c["aequa"].update(seeds=1.0), "aequa.seeds", "write 1, not 1.0"),
        (lambda c: c["mmfl"]["experiments"][0].update(rounds=4.0), "mmfl.experiments.0.rounds", "write 4, not 4.0"),
        (lambda c: c["auctions"]["exp6"].update(rounds=4.0), "auctions.exp6.rounds", "write 4, not 4.0"),
        (lambda c: c["partitions"][0].update(clients=2.5), "partitions.0.clients", "write a whole number"),
        (lambda c: c.update(runs_per_job={"default": 2.0}), "runs_per_job.default", "write 2, not 2.0"),
    ],
)
def test_float_where_an_integer_belongs_is_refused(default_config, mutate, key, fix):
    """JSON Schema counts 4.0 as an integer; a float there failed later with a traceback (issue 27)."""
    cfg = copy.deepcopy(default_config)
    mutate(cfg)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    message = str(info.value)
    assert message.startswith(f"config key '{key}': value ") and "is a float where an integer belongs" in message
    assert message.endswith(fix) and "\n" not in message


def test_aequa_p_min_is_one_number_or_per_dataset():
    from fairshare.papers.aequa.experiment import describe_per_dataset, lookup

    cfg = load_config(REPO / "config" / "config.yaml", overrides={"aequa": {"p_min": 0.2}})
    assert lookup(cfg["aequa"]["p_min"], "digits") == 0.2
    mapping = {"default": 0.1, "digits": 0.03}
    assert lookup(mapping, "digits", "fashion_mnist") == 0.03  # the data actually used decides first
    assert lookup(mapping, "synthetic") == 0.1
    assert describe_per_dataset(mapping) == "0.1 (digits 0.03)" and describe_per_dataset(0.25) == "0.25"


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (
            lambda c: c["aequa"]["table_partitions"].update(dirichlet="dir0.3"),
            "'aequa.table_partitions.dirichlet': 'dir0.3' is not a dirichlet partition in aequa.partitions; allowed names: dir0.5",
        ),
        (lambda c: c["aequa"]["table_partitions"].update(quantity_skew="dir0.5"), "allowed names: qskew0.4x2"),
        (
            lambda c: c["mmfl"].update(alpha_sweep_experiment="exp9"),
            "'mmfl.alpha_sweep_experiment': 'exp9' is not an experiment in mmfl.experiments; allowed names: exp1, exp2_s6",
        ),
        (lambda c: c["mmfl"].update(per_task_experiment="exp0"), "'mmfl.per_task_experiment': 'exp0'"),
        (
            lambda c: c["mmfl"].update(table2_experiments=["exp2_s6", "exp2_s7"]),
            "'mmfl.table2_experiments.1': 'exp2_s7'",
        ),
        (
            lambda c: c["aequa"].update(curve_partition="flat"),
            "'aequa.curve_partition': 'flat' is not a partition in aequa.partitions",
        ),
        (lambda c: c["aequa"]["participation"].update(partition="dir0.1"), "'aequa.participation.partition': 'dir0.1'"),
        (
            lambda c: c["aequa"]["training_time"].update(partitions={"fig3": "homogeneous", "fig4": "q"}),
            "'aequa.training_time.partitions.fig4': 'q'",
        ),
        (
            lambda c: c["aequa"].update(table9_datasets=["cifar10"]),
            "'aequa.table9_datasets.0': 'cifar10' is not one of aequa.datasets",
        ),
        (
            lambda c: c["aequa"]["participation"].update(datasets=["fmnist"]),
            "'aequa.participation.datasets.0': 'fmnist' is not a dataset",
        ),
        (lambda c: c["aequa"]["scale"].update(dataset="femnst"), "'aequa.scale.dataset': 'femnst' is not a dataset"),
        (
            lambda c: c["aequa"].update(max_train_samples={"default": 0, "fashion-mnist": 10}),
            "'aequa.max_train_samples.fashion-mnist'",
        ),
        (
            lambda c: c["data"].update(offline_fallback={"cifar_10": "synthetic"}),
            "'data.offline_fallback.cifar_10': 'cifar_10' is not a dataset",
        ),
        (
            lambda c: c["partitions"][1].update(name=c["partitions"][0]["name"]),
            "'partitions.1.name': name 'fmnist_homogeneous' is used twice",
        ),
        (
            lambda c: c["mmfl"].update(models={"synthetic": "mlp", "fashion_mnist": "mlp"}),
            "'mmfl.models' has no model for 'digits', used by 'mmfl.experiments.0.tasks'",
        ),
        (
            lambda c: c["payoff_flows"].update(label_ranges=[[0, 4], [5, 9]]),
            "'payoff_flows.budget_scenarios.1.budgets': 5 budgets for 2 parties",
        ),
        (
            lambda c: c["data"].update(mirrors={"fashion": ["/somewhere"]}),
            "'data.mirrors': value 'fashion' is not allowed",
        ),
        (
            lambda c: c["data"].update(mirrors=["/usr/share/datasets/fashion-mnist"]),
            "'data.mirrors': value ['/usr/share/datasets/fashion-mnist'] has the wrong type",
        ),
    ],
)
def test_cross_references_give_one_line_naming_key_value_and_allowed_names(default_config, mutate, needle):
    cfg = copy.deepcopy(default_config)
    cfg = validate_config(cfg)  # defaults filled in, so every referencing key exists
    mutate(cfg)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_a_fallback_dataset_needs_a_model_too(default_config):
    cfg = copy.deepcopy(default_config)
    cfg["mmfl"]["models"] = {"digits": "mnist_cnn", "synthetic": "mlp", "fashion_mnist": "mlp"}
    cfg["data"]["offline_fallback"]["fashion_mnist"] = "svhn"  # fashion_mnist may run as svhn here
    with pytest.raises(ConfigError, match="no model for 'svhn'"):
        validate_config(cfg)
    cfg["data"]["allow_download"] = True  # the fallback is never used
    validate_config(cfg)


def test_table_partition_of_an_unconfigured_scheme_is_not_an_error():
    cfg = load_config(REPO / "config" / "config.yaml", REPO / "config" / "test.yaml")
    assert not [p for p in cfg["aequa"]["partitions"] if p["scheme"] == "dirichlet"]  # its row group is absent
    assert cfg["aequa"]["table_partitions"]["dirichlet"] == "dir0.5"


def test_error_names_the_file_the_key_came_from(tmp_path):
    profile = tmp_path / "mine.yaml"
    profile.write_text("aequa:\n  curve_partition: dir9\n")
    with pytest.raises(ConfigError, match=r"^.*mine\.yaml: config key 'aequa.curve_partition': 'dir9'"):
        load_config(REPO / "config" / "config.yaml", profile)
    profile.write_text(
        "mmfl:\n  experiments:\n    - {name: only, tasks: [digits], clients: 2, active_rate: 1.0, size_range: [5, 6], "
        "partition: iid, rounds: 1, methods: [random]}\n"
    )
    # The bad key keeps its schema default: the error names the file that set its block.
    with pytest.raises(
        ConfigError, match=r"mine\.yaml: config key 'mmfl.per_task_experiment': 'exp1' .* allowed names: only$"
    ):
        load_config(REPO / "config" / "config.yaml", profile)
    profile.write_text("seed: -1\n")
    with pytest.raises(ConfigError, match=r"mine\.yaml: config key 'seed'"):
        load_config(REPO / "config" / "config.yaml", profile)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("seed: 1\nmmfl:\n  seeds: [1\n", "line 4, column 1: not valid YAML"),
        ("seed: 1\n\tdevice: cpu\n", "line 2, column 1: not valid YAML"),
        ("- seed\n", "a config file must be a mapping of config keys, not list"),
        ("aequa_x: {seeds: 2}\n", "unknown config key 'aequa_x' under the top level; did you mean 'aequa'?"),
        ("mmfl: {seedz: 3}\n", "unknown config key 'seedz' under 'mmfl'; did you mean 'seeds'?"),
    ],
)
def test_a_bad_config_file_gives_one_line_naming_the_file(tmp_path, text, needle):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(REPO / "config" / "config.yaml", bad)
    assert str(info.value).startswith(str(bad)) and needle in str(info.value) and "\n" not in str(info.value)


def test_precheck_reads_the_configfiles_of_a_snakemake_command_line(tmp_path, capsys, monkeypatch):
    from fairshare.pipeline.config import main

    monkeypatch.chdir(REPO)
    assert main(["-n", "--configfile", "config/test.yaml", "--cores", "1"]) == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("aequa: {curve_partition: [\n")
    assert main(["-n", f"--configfile={bad}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}, line 2" in err


def test_snakemake_sources_follow_snakemake_order(tmp_path, monkeypatch):
    from fairshare.pipeline.config import config_sources

    monkeypatch.chdir(REPO)
    cli = tmp_path / "cli.yaml"
    cli.write_text("seed: 3\n")
    # Snakemake lists --configfile files (absolute) first and appends the Snakefile's configfile; the latter is merged first.
    sources = config_sources([cli, "config/config.yaml"], [cli], {"seed": 4})
    assert [label for label, _ in sources] == ["config/config.yaml", str(cli), "--config"]


def test_sst_is_a_dataset_for_settings_but_has_no_offline_fallback(default_config):
    cfg = validate_config(copy.deepcopy(default_config))
    cfg["aequa"]["models"]["sst"] = "aequa_mlp"  # SST-5 is cached by the data rule (fairshare.data.sst)
    validate_config(cfg)
    cfg["data"]["offline_fallback"]["sst"] = "synthetic"  # only registry datasets are looked for offline
    with pytest.raises(ConfigError, match="'data.offline_fallback.sst': 'sst' is not a dataset"):
        validate_config(cfg)


def test_an_unknown_key_like_no_allowed_one_gets_no_guess(default_config):
    with pytest.raises(ConfigError, match="unknown config key 'zzzz'") as err:
        validate_config({**default_config, "zzzz": 1})
    assert "did you mean" not in str(err.value)
