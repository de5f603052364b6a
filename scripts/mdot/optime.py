# Timing for the MDOT dataset: the clocks (one CPU thread, CUDA events), the
# warm-up + median-of-repeats loop, whole training iterations and every
# operator timed alone (the operator-sum baseline); no graph export here.
"""Clocks and timing loops of collect.py.

A clock has start() and stop() -> seconds.  CpuClock reads the calling
thread's CPU time (time.thread_time), so a loaded machine slows the wall
clock but not the figure; CudaClock records a pair of CUDA events on the
current stream and waits for the second, so it measures the GPU's time
between them (kernels launched asynchronously included).

timed(run, clock, warmup, repeat, prepare) calls prepare() (untimed, may be
None), then times run(), warmup + repeat times, and returns the last
`repeat` times; the dataset keeps all of them and their median.

op_times(model, example, clock, ...) gives every operator of opgraph.export's
graph its own time: the operator alone, forward and backward, on fresh
copies of the inputs it saw in a real forward pass (CPU: an operator of a
real iteration would find them in cache just as well or badly).  Operators
with the same module or function, non-tensor arguments and input shapes are
timed once.
"""
import statistics
import time

import torch
import torch.fx

import opgraph


class CpuClock:
    """CPU seconds of the calling thread."""

    name = "thread CPU time"

    def start(self):
        self.t0 = time.thread_time()

    def stop(self):
        return time.thread_time() - self.t0


class CudaClock:
    """GPU seconds between two CUDA events on the current stream."""

    name = "CUDA events"

    def __init__(self):
        self.a = torch.cuda.Event(enable_timing=True)
        self.b = torch.cuda.Event(enable_timing=True)

    def start(self):
        self.a.record()

    def stop(self):
        self.b.record()
        self.b.synchronize()
        return self.a.elapsed_time(self.b) / 1e3  # ms -> s


def timed(run, clock, warmup, repeat, prepare=None):
    """The last `repeat` of warmup + repeat timed calls of run()."""
    times = []
    for i in range(warmup + repeat):
        if prepare is not None:
            prepare()
        clock.start()
        run()
        t = clock.stop()
        if i >= warmup:
            times.append(t)
    return times


def median(times):
    return statistics.median(times)


def autocast(device, precision):
    """The autocast context of a precision ("fp32": none)."""
    if precision == "fp32":
        return torch.autocast(device_type=device, enabled=False)
    dtype = torch.bfloat16 if precision == "bf16" else torch.float16
    return torch.autocast(device_type=device, dtype=dtype)


def iteration_times(model, x, labels, clock, warmup, repeat, device="cpu", precision="fp32"):
    """Times of whole training iterations: forward and cross-entropy loss
    (under autocast for bf16/fp16), backward, SGD step with momentum; fp16
    scales the loss (GradScaler) as mixed-precision training does."""
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    scaler = torch.cuda.amp.GradScaler() if precision == "fp16" else None

    def run():
        opt.zero_grad(set_to_none=True)
        with autocast(device, precision):
            out = model(x)
            loss = loss_fn(out.flatten(0, -2).float(), labels.flatten())
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
    return timed(run, clock, warmup, repeat)


def labels_for(model, x, classes, gen):
    """Random labels matching the model's output: one per sample, or one per
    token for [batch, seq, classes] logits."""
    with torch.no_grad():
        shape = model(x).shape[:-1]
    return torch.randint(0, classes, tuple(shape), generator=gen).to(x.device)


def _tensors(value):
    out = []
    torch.fx.node.map_aggregate(value, lambda v: out.append(v) if torch.is_tensor(v) else None)
    return out


def _key(node, gm, args, kwargs):
    """What decides an isolated operator's time: what it calls, the
    non-tensor arguments and the input tensors' shapes and types."""
    def describe(v):
        if torch.is_tensor(v):
            return ("T", tuple(v.shape), str(v.dtype), v.requires_grad)
        return repr(v)
    target = repr(gm.get_submodule(node.target)) if node.op == "call_module" else str(node.target)
    return (node.op, target,
            repr(torch.fx.node.map_aggregate(args, describe)),
            repr(torch.fx.node.map_aggregate(kwargs, describe)))


def _cut(v):
    """v cut from the autograd graph, so that the pass holds no graph of the
    whole model; a tensor that required grad still does, as a non-leaf (an
    in-place operator may write into it)."""
    if not torch.is_tensor(v):
        return v
    if not v.requires_grad:
        return v.detach()
    return v.detach().requires_grad_(True).clone()


class _OpTimer(torch.fx.Interpreter):
    """Runs the graph once; at every kept node, times the operator alone."""

    def __init__(self, gm, keep, clock, warmup, repeat):
        super().__init__(gm)
        self.keep, self.clock = keep, clock
        self.warmup, self.repeat = warmup, repeat
        self.times, self.cache = {}, {}

    def run_node(self, n):
        out = torch.fx.node.map_aggregate(super().run_node(n), _cut)
        if n in self.keep:
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            key = _key(n, self.module, args, kwargs)
            if key not in self.cache:
                self.cache[key] = median(self._time_alone(n, args, kwargs))
            self.times[n] = self.cache[key]
        return out

    def _time_alone(self, n, args, kwargs):
        """Forward + backward of node n alone on copies of its inputs."""
        leaves = {}

        def leaf(v):
            if not torch.is_tensor(v):
                return v
            if id(v) not in leaves:
                leaves[id(v)] = v.detach().clone().requires_grad_(v.requires_grad)
            return leaves[id(v)]
        largs = torch.fx.node.map_aggregate(args, leaf)
        lkwargs = torch.fx.node.map_aggregate(kwargs, leaf)
        params = list(self.module.get_submodule(n.target).parameters()) \
            if n.op == "call_module" else []
        state = {}

        def fresh(v):
            # a non-leaf copy, so that in-place operators (ReLU(inplace=True))
            # may write into it
            if torch.is_tensor(v) and v.requires_grad:
                return v.clone()
            return v

        def prepare():
            for p in params:
                p.grad = None
            for t in leaves.values():
                t.grad = None
            state["args"] = torch.fx.node.map_aggregate(largs, fresh)
            state["kwargs"] = torch.fx.node.map_aggregate(lkwargs, fresh)

        def run():
            call = getattr(self, n.op)
            out = call(n.target, state["args"], state["kwargs"])
            outs = [t for t in _tensors(out) if t.requires_grad]
            if outs:
                torch.autograd.backward(outs, [torch.ones_like(t) for t in outs])
        return timed(run, self.clock, self.warmup, self.repeat, prepare)


def op_times(model, example, clock, warmup=1, repeat=3):
    """Seconds of every operator of opgraph.export(model, example), in the
    same order, each timed alone (forward + backward, median of repeat after
    warmup)."""
    gm, keep = opgraph.trace(model, example)
    timer = _OpTimer(gm, keep, clock, warmup, repeat)
    timer.run(example)
    return [timer.times[n] for n in gm.graph.nodes if n in keep]
