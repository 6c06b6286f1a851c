"""Names of paper 3's data sets and where their files live, shared by the config check and the
loaders (no heavy imports: the config check runs in every Snakemake start-up)."""

DATASETS = ("digits", "cifar10")
CIFAR10_FOLDER = "cifar-10-batches-py"  # what torchvision's CIFAR10 reads under its root
