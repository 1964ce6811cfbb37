"""What verl's start-up reads before its pools, for tests/guard/run.sh: a model folder with
no weights (tests/verl/tiny_model.py) and a dataset in verl's RL format of ROWS rows (verl
0.5.0-0.8.x build the dataloader before the pools, and refuse an empty one).

    python tests/guard/fixtures.py MODEL_DIR DATA.parquet
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "verl"))

from tiny_model import make_tiny_model  # noqa: E402

# Two batches of the line's data.train_batch_size (tests/guard/run.sh).
ROWS = 32


def main():
    model, data = sys.argv[1], sys.argv[2]
    os.makedirs(model, exist_ok=True)
    make_tiny_model(model)
    import pandas

    pandas.DataFrame(
        {
            "data_source": ["openai/gsm8k"] * ROWS,
            "prompt": [[{"role": "user", "content": "a b c"}]] * ROWS,
            "ability": ["math"] * ROWS,
            "reward_model": [{"style": "rule", "ground_truth": "1"}] * ROWS,
            "extra_info": [{"index": i, "split": "train"} for i in range(ROWS)],
        }
    ).to_parquet(data)


if __name__ == "__main__":
    main()
