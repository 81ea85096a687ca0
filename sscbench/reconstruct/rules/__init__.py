"""Built-in use-rule sets, one per reference operator. Each module registers its set on
import; the package's ``sscbench.use_rules`` entry points name them, as a plugin's would."""
