/* config.h - one experiment's configuration: the scenario file (docs/usage.md)
 * plus command-line overrides.  Not here: loading what it names.
 *
 * A scenario is a JSON object with the keys "topology", "trace",
 * "scheduler" and "sim".  Every key of "sim" is also a command-line option
 * (config_set_option); options override the file whatever order they are
 * applied in, because config_load_file refuses to run after an override.
 *
 * Errors name the file and the key path:
 *   scenario.json: sim.mode: expected "window" or "work"
 */
#ifndef CCSIM_SIM_CONFIG_H
#define CCSIM_SIM_CONFIG_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum config_mode {
    CONFIG_MODE_WINDOW, /* each job runs to its recorded end: more iterations = better */
    CONFIG_MODE_WORK,   /* each job runs the iterations it would do alone: completion time */
} config_mode;

/* Placement policies (sim/cluster.h says each precisely). */
typedef enum config_placement {
    CONFIG_PLACE_RECORDED,   /* the trace's hosts; locality when they are missing or full */
    CONFIG_PLACE_LOCALITY,   /* same host, then same ToR, then same pod, then anywhere */
    CONFIG_PLACE_RANDOM,     /* hosts in a seeded random order */
    CONFIG_PLACE_PACKED,     /* hosts in id order, first fit */
    CONFIG_PLACE_SPREAD,     /* one GPU per host, ToRs taken in turn */
    CONFIG_PLACE_FRAGMENTED, /* a busy cluster's leftovers: a quarter of a host at most */
} config_placement;

typedef enum config_collective_model {
    CONFIG_COLL_RING,  /* a lock-step ring is one transfer per rail (docs/model.md) */
    CONFIG_COLL_FLOWS, /* every ring hop an independent transfer */
} config_collective_model;

/* When a lock-step transfer waits its hops' latency (docs/model.md §3). */
typedef enum config_step_latency {
    CONFIG_STEP_LATENCY_ONCE,     /* steps x alpha + the largest hop latency, once */
    CONFIG_STEP_LATENCY_PER_STEP, /* steps x (alpha + the largest hop latency) */
} config_step_latency;

/* How groups of jobs sharing links are fast-forwarded (docs/engine.md §5c, §5d). */
typedef enum config_steady {
    CONFIG_STEADY_EXACT,  /* exact repeats only: the event path's results */
    CONFIG_STEADY_APPROX, /* also extrapolate converged mean rates, with an error bound */
} config_steady;

/* How jobs named by a catalog model train (docs/models.md "Which model a
 * replay uses"). */
typedef enum config_job_model {
    CONFIG_JOB_MODEL_FLAT,       /* compute, then one gradient collective (the catalog's figures;
                                  * every replay before structured jobs) */
    CONFIG_JOB_MODEL_STRUCTURED, /* the structure the job's model and GPUs resolve to (workload.h);
                                  * the default */
} config_job_model;
/* Where trace jobs' compute times come from (docs/mdot.md §5). */
typedef enum config_compute {
    CONFIG_COMPUTE_CATALOG, /* the catalog's measured times (models.json) */
    CONFIG_COMPUTE_MDOT,    /* MDOT predictions of the graph library's graphs */
} config_compute;

/* The "sim" keys: each has an option --KEY with '_' written '-' (and the
 * short names noted).  NAN/0 means "from the trace" where stated. */
typedef struct config_sim {
    config_mode mode;           /* sim.mode, --mode */
    double start_s;             /* sim.start_s, --start: trace time where the replay starts (NAN = trace start) */
    double end_s;               /* sim.end_s, --end: trace time where it ends (NAN = last job end) */
    uint64_t seed;              /* sim.seed, --seed */
    int priority_levels;        /* sim.priority_levels, --levels: K */
    double interval_s;          /* sim.interval_s, --interval: time-series interval (simulated s) */
    double time_scale;          /* sim.time_scale, --time-scale: trace times are multiplied by this */
    config_placement placement; /* sim.placement, --placement */
    config_collective_model collective_model; /* sim.collective_model, --collective-model */
    int channels;               /* sim.channels, --channels: lock-step rings per rail (NCCL
                                 * channels), 1..32; 0 = "auto", NCCL's rule (docs/model.md §3) */
    double alpha_us;            /* sim.alpha_us, --alpha-us: startup latency per collective step */
    config_step_latency step_latency; /* sim.step_latency, --step-latency (default once) */
    char *gpu;                  /* sim.gpu, --gpu: "a100" or "h100" */
    int buckets;                /* sim.buckets, --buckets: gradient buckets (default 1; 0 = the catalog's) */
    double jitter_sigma;        /* sim.jitter_sigma, --jitter: log-normal sigma of compute jitter */
    bool scale_hosts;           /* sim.scale_hosts, --scale-hosts: allow a trace larger than the topology */
    bool gzip;                  /* sim.gzip, --gzip: write the CSV files gzipped */
    bool fast_forward;          /* sim.fast_forward, --fast-forward: no per-iteration events for
                                 * contention-free jobs (default true; docs/engine.md) */
    config_steady steady;       /* sim.steady, --steady (default exact; docs/engine.md §5d) */
    config_job_model job_model; /* sim.job_model, --job-model: how catalog-named jobs train (structured) */
    int shards;                 /* sim.shards, --shards: consecutive time shards the window is
                                 * replayed in, each with a warm-up (default 1; docs/cluster.md) */
    int shard_warmup;           /* sim.shard_warmup, --shard-warmup: a shard's warm-up, in
                                 * iterations alone of the slowest job running at its start
                                 * (default CONFIG_SHARD_WARMUP) */
    config_compute compute;     /* sim.compute, --compute (default catalog) */
    char *mdot_weights;         /* sim.mdot_weights, --mdot-weights: MDOT weights of this device
                                 * for every job whatever the GPU (the recorded override), or NULL */
    char *graph_library;        /* sim.graph_library, --graph-library: graph library index (in a
                                 * scenario relative to it), or NULL for the built-in one */
    cJSON *structure_set;       /* sim.structure_set, --structure-set KEY=VALUE: structure keys
                                 * laid over every job that resolves to a structure
                                 * (workload_set_check; owned), or NULL */
} config_sim;

/* The default warm-up of a time shard, in iterations (docs/cluster.md says
 * why it is enough). */
#define CONFIG_SHARD_WARMUP 20

typedef struct config {
    char *path;          /* the scenario file, or NULL when there is none */
    char *name;          /* scenario name: file base name without .json, or "default" */
    cJSON *root;         /* the parsed scenario (owned), or NULL */
    char *topology_spec; /* builder spec string, or NULL (then topology_obj or the default) */
    const cJSON *topology_obj; /* (transfer none) hand-written topology object, or NULL */
    char *trace_path;    /* --trace DIR|FILE, or NULL */
    const cJSON *trace_obj; /* (transfer none) the scenario's "trace" object, or NULL */
    char *scheduler;     /* scheduler name (default "ecmp") */
    const cJSON *scheduler_obj; /* (transfer none) the object of the current scheduler, or NULL */
    const cJSON *scheduler_file_obj; /* (transfer none) the scenario's scheduler object, or NULL */
    const cJSON *timeline_obj; /* (transfer none) the scenario's "timeline" object, or NULL */
    config_sim sim;
    bool overridden;     /* an option has been applied */
} config;

/* Defaults: window mode, whole trace, seed 1, 8 levels, interval 60 s,
 * time scale 1, recorded placement, ring collectives, NCCL's channels
 * ("auto"), alpha 5 us, a100,
 * one bucket, jitter 0, no scaling, plain CSV, fast-forward on, one shard.
 * (transfer full) */
config *config_new(void);
void config_free(config *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(config, config_free)

/* Read a scenario file into c (before any override).  Errors:
 * CCS_ERROR_IO (unreadable), CCS_ERROR_PARSE (not JSON: with line),
 * CCS_ERROR_INVALID (a bad key or value: "FILE: KEY.PATH: reason"). */
bool config_load_file(config *c, const char *path, GError **error);
/* The same from a buffer; name is used in messages. */
bool config_load_buffer(config *c, const char *buf, size_t len, const char *name,
                        GError **error);

/* Apply the command-line value of sim key `key` ("mode", "start_s", ...,
 * option spelling "start" and "levels" accepted too).  Errors name the
 * option: "--mode: expected \"window\" or \"work\"". */
bool config_set_option(config *c, const char *key, const char *value, GError **error);
/* Add one --structure-set "KEY=VALUE" to c->sim.structure_set (a later
 * KEY replaces an earlier one): VALUE true or false, a decimal number, or
 * else a string; the key and value checked as workload_set_check does.
 * Errors name the option: "--structure-set: ...". */
bool config_set_structure_key(config *c, const char *key_value, GError **error);
/* Set the scheduler name, topology spec or trace path from the command line. */
void config_set_scheduler(config *c, const char *name);
void config_set_topology(config *c, const char *spec);
void config_set_trace(config *c, const char *path);

/* The resolved configuration as JSON, for run.json.  (transfer full) */
cJSON *config_to_json(const config *c);

const char *config_mode_name(config_mode m);
const char *config_placement_name(config_placement p);
const char *config_collective_model_name(config_collective_model m);
const char *config_steady_name(config_steady s);
const char *config_job_model_name(config_job_model j);
const char *config_step_latency_name(config_step_latency s);

/* The sim keys, for --help and docs: NULL-terminated list of names. */
const char *const *config_sim_keys(void);

#endif /* CCSIM_SIM_CONFIG_H */
