#!/usr/bin/env python3
"""A stand-in for a training script, for examples/lr-sweep.yaml: it takes
the sweep's arguments, "trains" for a few steps (a loss that falls faster
with a better learning rate, with a seeded wobble), and writes what the spec
declares: metrics.json (accuracy, loss) and model.pt."""
import argparse, json, math, random

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, required=True)
p.add_argument("--model", required=True)
p.add_argument("--seed", type=int, default=0)
a = p.parse_args()
rng = random.Random(a.seed)
size = {"resnet18": 1.0, "resnet50": 1.3, "vit": 1.6}.get(a.model, 1.0)
loss = 2.3
for step in range(20):
    loss *= 1 - min(0.3, a.lr * size * 2) * (1 - abs(math.log10(a.lr) + 2) / 4)
    loss += rng.uniform(-0.01, 0.01)
loss = max(loss, 0.01)
with open("metrics.json", "w") as f:
    json.dump({"loss": round(loss, 4), "accuracy": round(1 / (1 + loss), 4)}, f)
with open("model.pt", "wb") as f:
    f.write(("%s lr=%g seed=%d\n" % (a.model, a.lr, a.seed)).encode())
