"""The bootstrap's defaults, written once for every interval: the run summary's, agreement's, tune's and certify's."""

RESAMPLES = 1000  # bootstrap resamples unless a command or a config says otherwise
SEED = 0  # the bootstrap's seed unless given
