"""What verl's start-up reads before its pools, for tests/guard/run.sh: a model folder with
no weights (tests/verl/tiny_model.py) and a one-row dataset in verl's RL format.

    python tests/guard/fixtures.py MODEL_DIR DATA.parquet
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "verl"))

from tiny_model import make_tiny_model  # noqa: E402


def main():
    model, data = sys.argv[1], sys.argv[2]
    os.makedirs(model, exist_ok=True)
    make_tiny_model(model)
    import pandas

    pandas.DataFrame(
        {
            "data_source": ["openai/gsm8k"],
            "prompt": [[{"role": "user", "content": "a b c"}]],
            "ability": ["math"],
            "reward_model": [{"style": "rule", "ground_truth": "1"}],
            "extra_info": [{"index": 0, "split": "train"}],
        }
    ).to_parquet(data)


if __name__ == "__main__":
    main()
