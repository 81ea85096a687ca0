"""Built-in refutation relations, one per module. Each module registers its relation on
import; the package's ``sscbench.relations`` entry points name them, as a plugin's would."""
