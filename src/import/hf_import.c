/* SPDX-License-Identifier: MIT */
/*
 * hf_import.c: a Hugging Face config.json as a .roof model (import.h;
 * specs/language.md section 20, R-HF-*).
 *
 * A config names a family (model_type) and its sizes; the family decides
 * the layer's structure.  The families are ONE table, `families`: one row
 * each, the features its modelling code has (rotary embeddings, a gated
 * MLP, q/k norms, mixtures of experts, multi-head latent attention, ...).
 * The text is written by one generator per feature (emit_attention,
 * emit_mla, emit_mlp, emit_moe, emit_head, ...), each reading the row's
 * features and the config's fields, never the family's name.
 *
 * The config's fields are read through `Cfg`, which remembers every key it
 * consulted, so the header comment lists exactly the fields the model
 * came from, and a field that changes the cost but is not understood is a
 * warning (R-HF-006) rather than silently dropped.
 */
#include "import.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ families */

/* What a family's modelling code does, one bit per generator choice
 * (64 of them: a uint64_t). */
#define F_ROPE (UINT64_C(1) << 0) /* rotary embeddings on q and k */
#define F_PARTIAL_ROPE (UINT64_C(1) << 1) /* on the first rotary_pct of each head (neox) */
#define F_LEARNED_POS (UINT64_C(1) << 2) /* a position embedding table (gpt2, bert) */
#define F_RMSNORM (UINT64_C(1) << 3) /* RMSNorm (weight only); else LayerNorm + bias */
#define F_GATED (UINT64_C(1) << 4) /* act(gate) * up, then down (SwiGLU, GeGLU) */
#define F_QKV_BIAS (UINT64_C(1) << 5) /* biases on q, k, v whatever attention_bias */
#define F_ALL_BIAS (UINT64_C(1) << 6) /* biases on every projection */
#define F_QK_NORM (UINT64_C(1) << 7) /* RMSNorm of each head of q and k (qwen3) */
#define F_SANDWICH (UINT64_C(1) << 8) /* norms after attention and MLP too (gemma2) */
#define F_EMBED_SCALE (UINT64_C(1) << 9) /* embeddings times sqrt(hidden_size) (gemma) */
#define F_SOFTCAP (UINT64_C(1) << 10) /* cap * tanh(x / cap) on the logits (gemma2) */
#define F_TIED (UINT64_C(1) << 11) /* tie_word_embeddings defaults to true */
#define F_PARALLEL_RESID (UINT64_C(1) << 12) /* x + attn(ln1 x) + mlp(ln2 x) (neox) */
#define F_ENCODER (UINT64_C(1) << 13) /* bidirectional, post-norm, pooler (bert) */
#define F_MOE (UINT64_C(1) << 14) /* routed experts */
#define F_SHARED_EXPERT (UINT64_C(1) << 15) /* plus always-on shared experts */
#define F_SHARED_GATE (UINT64_C(1) << 16) /* the shared expert's sigmoid gate (qwen2_moe) */
#define F_MLA (UINT64_C(1) << 17) /* multi-head latent attention (deepseek) */
#define F_SLIDING (UINT64_C(1) << 18) /* honours sliding_window, every layer */
#define F_ALT_SLIDING (UINT64_C(1) << 19) /* sliding_window on every other layer */
#define F_FUSED_QKV (UINT64_C(1) << 20) /* one q/k/v weight in the checkpoint */
#define F_FUSED_GATE_UP (UINT64_C(1) << 21) /* one gate/up weight in the checkpoint */
#define F_USE_SLIDING (UINT64_C(1) << 22) /* sliding_window only with use_sliding_window */
#define F_SIGMOID_ROUTER (UINT64_C(1) << 23) /* sigmoid scores plus a correction bias */
/* the parallel block's attention and MLP read one norm (gptj, falcon) */
#define F_ONE_NORM (UINT64_C(1) << 24)
#define F_NO_PRENORM (UINT64_C(1) << 25) /* with F_SANDWICH: the norms after only (olmo2) */
#define F_QK_NORM_FULL (UINT64_C(1) << 26) /* RMSNorm of all of q and of k (olmo2) */
#define F_HEAD_BIAS (UINT64_C(1) << 27) /* lm_head has a bias (gptj; phimoe's lm_head_bias) */
#define F_ALIBI (UINT64_C(1) << 28) /* ALiBi's linear biases, no rotary (bloom) */
#define F_EMBED_NORM (UINT64_C(1) << 29) /* a LayerNorm after the embedding (bloom) */
/* multi_query (one KV head) and new_decoder_architecture (falcon) */
#define F_MULTI_QUERY (UINT64_C(1) << 30)
#define F_MLP_BIAS (UINT64_C(1) << 31) /* biases on the MLP, none on attention (gptj) */
/* positions start past padding_idx: pad_token_id + 1 rows unused (roberta) */
#define F_POS_OFFSET (UINT64_C(1) << 32)
/* sliding or full attention a layer, from layer_types or
 * sliding_window_pattern (gemma3) */
#define F_LAYER_TYPES (UINT64_C(1) << 33)
/* the language model is the config's text_config (a multimodal gemma3) */
#define F_TEXT_CONFIG (UINT64_C(1) << 34)
#define F_SINKS (UINT64_C(1) << 35) /* a learned sink logit a head (gpt_oss) */
#define F_ROUTER_BIAS (UINT64_C(1) << 36) /* the router has a bias (gpt_oss) */
/* attention_bias is q, k and v's only: o_proj has none (glm4_moe) */
#define F_NO_O_BIAS (UINT64_C(1) << 37)
#define F_USE_QK_NORM (UINT64_C(1) << 38) /* F_QK_NORM only with use_qk_norm */
/* encoder-decoders (R-FAM-101): an encoder's stack, then a decoder's with
 * cross-attention on the encoder's output */
#define F_ENCDEC (UINT64_C(1) << 50)
#define F_REL_BIAS (UINT64_C(1) << 51) /* T5's relative position bias */
#define F_AUDIO_CONV (UINT64_C(1) << 52) /* two Conv1d over mel frames (whisper) */
#define F_NO_K_BIAS (UINT64_C(1) << 53) /* with F_ALL_BIAS: k_proj has none (whisper) */
/* a tied head reads the decoder's output times d_model^-0.5 (t5) */
#define F_HEAD_SCALE (UINT64_C(1) << 54)
/* selective state-space layers instead of attention and MLP (mamba) */
#define F_SSM (UINT64_C(1) << 39)
/* chunked attention (attention_chunk_size) on the rotary layers that
 * no_rope_layers marks, global NoPE layers with their temperature, a
 * weightless L2 norm of q and k with use_qk_norm (llama4) */
#define F_CHUNKED (UINT64_C(1) << 40)
/* the sigmoid of the top-k router logits, which scale each expert's
 * input; one shared expert of the experts' width (llama4) */
#define F_TOPK_SIGMOID (UINT64_C(1) << 41)

typedef struct Family {
  const char *model_type;
  const char *arch;     /* architectures[0] starts with it: LlamaForCausalLM */
  uint64_t features;
  const char *act;      /* hidden_act when the config has none */
  const char *act_field; /* the field the code reads it from (NULL: hidden_act) */
  const char *qkv_name; /* the checkpoint's fused q/k/v weight, if any */
  const char *doc;
  /* the field that turns every projection's bias on or off (its default:
   * F_ALL_BIAS), and the one that turns the parallel block off; NULL:
   * none */
  const char *bias_field, *parallel_field;
} Family;

#define LLAMA_LIKE (F_ROPE | F_RMSNORM | F_GATED)
static const Family families[] = {
    {"llama", "Llama", LLAMA_LIKE, "silu", NULL, NULL,
     "Llama 1, 2, 3, 3.1: RMSNorm, rotary, SwiGLU, grouped-query attention",
     NULL, NULL},
    {"mistral", "Mistral", LLAMA_LIKE | F_SLIDING, "silu", NULL, NULL,
     "Mistral: Llama's layer with a sliding-window KV cache",
     NULL, NULL},
    {"mixtral", "Mixtral", LLAMA_LIKE | F_SLIDING | F_MOE, "silu", NULL, NULL,
     "Mixtral: Mistral's attention, top-k of routed SwiGLU experts",
     NULL, NULL},
    {"qwen2", "Qwen2", LLAMA_LIKE | F_QKV_BIAS | F_SLIDING | F_USE_SLIDING,
     "silu", NULL, NULL, "Qwen2, Qwen2.5: Llama's layer with q/k/v biases",
     NULL, NULL},
    {"qwen2_moe", "Qwen2Moe",
     LLAMA_LIKE | F_QKV_BIAS | F_MOE | F_SHARED_EXPERT | F_SHARED_GATE |
         F_SLIDING | F_USE_SLIDING,
     "silu", NULL, NULL, "Qwen1.5/Qwen2 MoE: routed experts and a gated shared expert",
     NULL, NULL},
    {"qwen3", "Qwen3", LLAMA_LIKE | F_QK_NORM | F_SLIDING | F_USE_SLIDING,
     "silu", NULL, NULL, "Qwen3: RMSNorm of each head of q and k",
     NULL, NULL},
    {"qwen3_moe", "Qwen3Moe",
     LLAMA_LIKE | F_QK_NORM | F_MOE | F_SLIDING | F_USE_SLIDING, "silu", NULL, NULL,
     "Qwen3 MoE: Qwen3's attention, routed experts",
     NULL, NULL},
    {"gemma", "Gemma", LLAMA_LIKE | F_EMBED_SCALE | F_TIED,
     "gelu_pytorch_tanh", "hidden_activation", NULL,
     "Gemma: GeGLU, embeddings scaled by sqrt(hidden_size), tied head",
     NULL, NULL},
    {"gemma2", "Gemma2",
     LLAMA_LIKE | F_EMBED_SCALE | F_TIED | F_SANDWICH | F_SOFTCAP |
         F_ALT_SLIDING,
     "gelu_pytorch_tanh", "hidden_activation", NULL,
     "Gemma 2: Gemma with four norms a layer, soft-capped logits, "
     "sliding window on every other layer",
     NULL, NULL},
    {"phi3", "Phi3", LLAMA_LIKE | F_SLIDING | F_FUSED_QKV | F_FUSED_GATE_UP,
     "silu", NULL, "qkv_proj", "Phi-3: Llama's layer with fused qkv and gate_up weights",
     NULL, NULL},
    {"gpt2", "GPT2", F_LEARNED_POS | F_ALL_BIAS | F_TIED | F_FUSED_QKV,
     "gelu_new", NULL, "c_attn",
     "GPT-2: LayerNorm, learned positions, GELU MLP, biases, tied head",
     NULL, NULL},
    {"gpt_neox", "GPTNeoX",
     F_ROPE | F_PARTIAL_ROPE | F_ALL_BIAS | F_FUSED_QKV | F_PARALLEL_RESID,
     "gelu", NULL, "query_key_value",
     "GPT-NeoX, Pythia: partial rotary, parallel attention and MLP", NULL,
     "use_parallel_residual"},
    {"deepseek_v2", "DeepseekV2",
     LLAMA_LIKE | F_MLA | F_MOE | F_SHARED_EXPERT, "silu", NULL, NULL,
     "DeepSeek-V2: multi-head latent attention, shared and routed experts",
     NULL, NULL},
    {"deepseek_v3", "DeepseekV3",
     LLAMA_LIKE | F_MLA | F_MOE | F_SHARED_EXPERT | F_SIGMOID_ROUTER, "silu", NULL,
     NULL, "DeepSeek-V3, R1: DeepSeek-V2 with a sigmoid router",
     NULL, NULL},
    {"bert", "Bert", F_LEARNED_POS | F_ALL_BIAS | F_ENCODER, "gelu", NULL, NULL,
     "BERT: encoder, post-LayerNorm, token types, pooler",
     NULL, NULL},
    {"roberta", "Roberta", F_LEARNED_POS | F_ALL_BIAS | F_ENCODER | F_POS_OFFSET,
     "gelu", NULL, NULL,
     "RoBERTa: BERT's layer, positions numbered from pad_token_id + 1",
     NULL, NULL},
    {"falcon", "Falcon",
     F_ROPE | F_FUSED_QKV | F_PARALLEL_RESID | F_ONE_NORM | F_MULTI_QUERY | F_TIED,
     "gelu", NULL, "query_key_value",
     "Falcon: multi-query attention, attention and MLP in parallel on one "
     "LayerNorm (two and grouped KV heads with new_decoder_architecture)",
     "bias", "parallel_attn"},
    {"gptj", "GPTJ",
     F_ROPE | F_PARTIAL_ROPE | F_PARALLEL_RESID | F_ONE_NORM | F_MLP_BIAS |
         F_HEAD_BIAS,
     "gelu_new", NULL, NULL,
     "GPT-J: attention and MLP in parallel on one LayerNorm, rotary on "
     "rotary_dim of each head, an untied head with a bias",
     NULL, NULL},
    {"starcoder2", "Starcoder2", F_ROPE | F_ALL_BIAS | F_SLIDING | F_TIED,
     "gelu_pytorch_tanh", NULL, NULL,
     "StarCoder2: LayerNorm, a GELU MLP, biases (use_bias), grouped-query "
     "attention, a sliding window", "use_bias", NULL},
    {"olmo2", "Olmo2",
     LLAMA_LIKE | F_SANDWICH | F_NO_PRENORM | F_QK_NORM_FULL, "silu", NULL, NULL,
     "OLMo 2: norms after attention and MLP (none before), RMSNorm of all of "
     "q and of k",
     NULL, NULL},
    {"phimoe", "PhiMoE", F_ROPE | F_GATED | F_MOE | F_SLIDING, "silu", NULL, NULL,
     "Phi-3.5-MoE: LayerNorm, top-k of routed SwiGLU experts, attention_bias, "
     "lm_head_bias",
     NULL, NULL},
    {"gemma3_text", "Gemma3",
     LLAMA_LIKE | F_EMBED_SCALE | F_TIED | F_SANDWICH | F_SOFTCAP | F_QK_NORM |
         F_LAYER_TYPES,
     "gelu_pytorch_tanh", "hidden_activation", NULL,
     "Gemma 3: Gemma 2's four norms, RMSNorm of each head of q and k, "
     "sliding-window layers between global ones (layer_types, "
     "sliding_window_pattern)",
     NULL, NULL},
    {"gemma3", "Gemma3",
     LLAMA_LIKE | F_EMBED_SCALE | F_TIED | F_SANDWICH | F_SOFTCAP | F_QK_NORM |
         F_LAYER_TYPES | F_TEXT_CONFIG,
     "gelu_pytorch_tanh", "hidden_activation", NULL,
     "Gemma 3 (multimodal): the language model of its text_config, a "
     "gemma3_text layer; the vision tower and projector are not written",
     NULL, NULL},
    {"gpt_oss", "GptOss",
     F_ROPE | F_RMSNORM | F_GATED | F_FUSED_GATE_UP | F_MOE | F_MLP_BIAS |
         F_ROUTER_BIAS | F_SINKS | F_LAYER_TYPES,
     "silu", NULL, NULL,
     "gpt-oss: attention sinks, sliding-window and full layers alternating "
     "(layer_types), experts with biases, a router with a bias",
     NULL, NULL},
    {"glm4_moe", "Glm4Moe",
     LLAMA_LIKE | F_PARTIAL_ROPE | F_QK_NORM | F_USE_QK_NORM | F_NO_O_BIAS |
         F_MOE | F_SHARED_EXPERT | F_SIGMOID_ROUTER,
     "silu", NULL, NULL,
     "GLM-4.5: q/k/v biases (attention_bias), rotary on partial_rotary_factor "
     "of each head, a sigmoid router, shared and routed experts after "
     "first_k_dense_replace dense layers",
     NULL, NULL},
    {"bloom", "Bloom",
     F_ALIBI | F_ALL_BIAS | F_FUSED_QKV | F_EMBED_NORM | F_TIED,
     "gelu_pytorch_tanh", NULL, "query_key_value",
     "BLOOM: ALiBi (no rotary), a LayerNorm after the embedding, fused qkv, "
     "biases, tied head",
     NULL, NULL},
    {"t5", "T5", F_ENCDEC | F_RMSNORM | F_REL_BIAS | F_TIED | F_HEAD_SCALE,
     "relu", "feed_forward_proj", NULL,
     "T5: encoder-decoder, relative position bias, RMS-style norms without "
     "bias, ReLU or gated-GELU FFN (feed_forward_proj), tied head scaled by "
     "d_model^-0.5",
     NULL, NULL},
    {"whisper", "Whisper",
     F_ENCDEC | F_AUDIO_CONV | F_LEARNED_POS | F_ALL_BIAS | F_NO_K_BIAS | F_TIED,
     "gelu", NULL, NULL,
     "Whisper: audio encoder-decoder, two Conv1d over the mel frames, "
     "sinusoidal encoder positions (a buffer), learned decoder positions, "
     "LayerNorm, biases but on k_proj, GELU MLP, tied head",
     NULL, NULL},
    {"llama4_text", "Llama4",
     LLAMA_LIKE | F_MOE | F_SHARED_EXPERT | F_TOPK_SIGMOID | F_CHUNKED, "silu",
     NULL, NULL,
     "Llama 4 (text): routed experts and a shared one (every "
     "interleave_moe_layer_step-th layer), a sigmoid router, chunked "
     "attention on the rotary layers, global NoPE layers",
     NULL, NULL},
    {"llama4", "Llama4",
     LLAMA_LIKE | F_MOE | F_SHARED_EXPERT | F_TOPK_SIGMOID | F_CHUNKED |
         F_TEXT_CONFIG,
     "silu", NULL, NULL,
     "Llama 4 (multimodal): the language model of its text_config, a "
     "llama4_text layer; the vision tower and projector are not written",
     NULL, NULL},
    {"mamba", "Mamba", F_SSM | F_RMSNORM | F_TIED, "silu", NULL, NULL,
     "Mamba: selective state-space layers (in_proj, a causal depthwise "
     "conv1d, the selective scan gated by silu(z), out_proj), no attention, "
     "RMSNorm, tied head",
     NULL, NULL},
};
enum { NFAMILIES = sizeof families / sizeof *families };

/* Real families the importer does not write, and why (R-FAM-003): such a
 * model_type is refused with the reason and no did-you-mean, since the
 * nearest name is another architecture (mamba is not llama) and a
 * relabelled config would give a wrong count. */
static const char *const unimported[][2] = {
    {"mt5", "T5's encoder-decoder, not modelled"},
    {"umt5", "T5's encoder-decoder, not modelled"},
    {"bart", "encoder-decoder with cross-attention, not modelled"},
    {"mbart", "encoder-decoder with cross-attention, not modelled"},
    {"marian", "encoder-decoder with cross-attention, not modelled"},
    {"pegasus", "encoder-decoder with cross-attention, not modelled"},
    {"mamba2", "selective state-space v2, not modelled"},
    {"falcon_mamba", "selective state-space model (no attention), not modelled"},
    {"jamba", "attention interleaved with Mamba layers, not modelled"},
    {"zamba2", "Mamba-2 layers with shared attention, not modelled"},
    {"rwkv", "a linear-attention recurrence (no KV cache), not modelled"},
    {"recurrent_gemma", "RG-LRU recurrence with local attention, not modelled"},
    {"mpt", "ALiBi with MPT's blocks, not imported"},
    {"gpt_bigcode", "multi-query attention with learned positions, not imported"},
    {"opt", "OPT's layer (positions offset by 2), not imported"},
    {"llava", "a vision tower and projector before the language model, not "
              "imported"},
};

/* A field's default in the family's configuration class, for configs that
 * leave it out (a multimodal gemma3's text_config names only a few; the
 * rest are Gemma3TextConfig's defaults).  The header says which were
 * taken. */
static const struct FamilyDefault {
  const char *model_type, *field;
  int64_t value;
} family_defaults[] = {
    {"gemma3", "num_attention_heads", 8},   {"gemma3", "num_key_value_heads", 4},
    {"gemma3", "head_dim", 256},            {"gemma3", "vocab_size", 262208},
    {"gemma3", "sliding_window", 4096},     {"gemma3", "sliding_window_pattern", 6},
    {"gemma3", "hidden_size", 2304},        {"gemma3", "intermediate_size", 9216},
    {"gemma3", "num_hidden_layers", 26},
    {"gemma3_text", "sliding_window_pattern", 6},
    {"llama4", "intermediate_size_mlp", 16384},
    {"llama4_text", "intermediate_size_mlp", 16384},
    {"llama4", "attention_chunk_size", 8192},
    {"llama4_text", "attention_chunk_size", 8192},
};

/* Another family's spelling of a canonical field (GPT-2's n_embd is
 * hidden_size), as transformers' attribute_map has them.  The first
 * present wins; the canonical name is tried first. */
static const char *const aliases[][5] = {
    {"hidden_size", "n_embd", "d_model", "n_embed", NULL},
    {"num_hidden_layers", "n_layer", "num_layers", NULL, NULL},
    {"num_attention_heads", "n_head", NULL, NULL, NULL},
    {"num_key_value_heads", "num_kv_heads", NULL, NULL, NULL},
    {"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size", NULL},
    {"max_position_embeddings", "n_positions", "n_ctx", NULL, NULL},
    {"hidden_act", "hidden_activation", "activation_function", "activation", NULL},
    {"num_experts", "num_local_experts", "n_routed_experts", NULL, NULL},
    {"torch_dtype", "dtype", NULL, NULL, NULL},
};

/* The fields the importer knows, and so says nothing of (R-HF-006): those
 * the generators read, and those that change no cost figure (ids,
 * epsilons, initialisation, rotary frequencies, dropout, serving hints). */
static const char *const known_fields[] = {
    "_name_or_path", "architectures", "model_type", "transformers_version",
    "_attn_implementation_autoset", /* transformers writes its own choice */
    "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id",
    "decoder_start_token_id", "initializer_range", "initializer_factor",
    "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "rope_theta",
    "rotary_emb_base", "rope_scaling", "rope_interleave", "use_cache",
    "attention_dropout", "hidden_dropout", "hidden_dropout_prob",
    "attention_probs_dropout_prob", "resid_pdrop", "embd_pdrop", "attn_pdrop",
    "summary_type", "summary_use_proj", "summary_activation",
    "summary_proj_to_labels", "summary_first_dropout", "scale_attn_weights",
    "task_specific_params", "pretraining_tp", "tie_word_embeddings",
    "classifier_dropout", "position_embedding_type", "gradient_checkpointing",
    "original_max_position_embeddings", "router_aux_loss_coef",
    "output_router_logits", "router_jitter_noise", "aux_loss_alpha",
    "seq_aux", "routed_scaling_factor", "norm_topk_prob", "n_group",
    "topk_group", "topk_method", "ep_size", "query_pre_attn_scalar",
    "max_window_layers", "use_parallel_residual", "auto_map", "id2label",
    "label2id", "num_labels", "problem_type", "is_decoder",
    "tokenizer_class", "vocab_file", "reorder_and_upcast_attn",
    "scale_attn_by_inverse_layer_idx", "resid_dropout", "embed_dropout",
    "hidden_dropout_rate", "cache_implementation", "attn_implementation",
    "rope_type", "head_dim", "use_sliding_window", "sliding_window",
    "mlp_bias", "attention_bias", "qkv_bias", "rotary_pct",
    "partial_rotary_factor", "num_key_value_heads", "vocab_size",
    "type_vocab_size", "moe_intermediate_size", "num_experts_per_tok",
    "n_shared_experts", "first_k_dense_replace", "moe_layer_freq",
    "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
    "v_head_dim", "shared_expert_intermediate_size", "decoder_sparse_step",
    "mlp_only_layers", "scoring_func", "attn_logit_softcapping",
    "final_logit_softcapping", "hidden_act", "hidden_activation",
    "activation_function", "num_nextn_predict_layers", "n_embd", "n_layer",
    "n_head", "n_inner", "n_positions", "n_ctx", "hidden_size",
    "num_hidden_layers", "num_attention_heads", "intermediate_size",
    "max_position_embeddings", "num_experts", "num_local_experts",
    "n_routed_experts", "torch_dtype", "dtype", "tie_encoder_decoder",
    "bias", "embed_scale", "sliding_window_size", "num_kv_heads",
    "ffn_hidden_size", "activation", "multi_query", "new_decoder_architecture",
    "parallel_attn", "alibi", "rotary_dim", "use_bias", "lm_head_bias",
    /* read by no modelling code, or changing no figure: GPT-J's rotary
     * flag, Falcon's and BLOOM's residual order, norm epsilons and
     * fusion switches, PhiMoE's jitter */
    "rotary", "apply_residual_connection_post_layernorm", "norm_epsilon",
    "residual_dropout", "embedding_dropout", "attention_softmax_in_fp32",
    "bias_dropout_fusion", "masked_softmax_fusion", "offset_alibi",
    "skip_bias_add", "skip_bias_add_qkv", "slow_but_exact", "unk_token_id",
    "input_jitter_noise", "n_embed", "num_ln_in_parallel_attn", "mlp_type",
    "sliding_window_pattern", "rope_local_base_freq", "text_config",
    "experts_per_token", "initial_context_length", "swiglu_limit",
    "use_qk_norm",
    /* encoder-decoders (R-FAM-101): T5Config's and WhisperConfig's sizes,
     * and what changes no figure (relative_attention_max_distance only
     * buckets distances; SpecAugment's masks, layer drop and the
     * classifier head are training or fine-tuning switches) */
    "d_model", "d_kv", "d_ff", "num_layers", "num_decoder_layers", "num_heads",
    "relative_attention_num_buckets", "relative_attention_max_distance",
    "feed_forward_proj", "dropout_rate", "is_gated_act", "dense_act_fn",
    "output_past", "encoder_layers", "decoder_layers",
    "encoder_attention_heads", "decoder_attention_heads", "encoder_ffn_dim",
    "decoder_ffn_dim", "num_mel_bins", "max_source_positions",
    "max_target_positions", "scale_embedding", "activation_dropout",
    "dropout", "encoder_layerdrop", "decoder_layerdrop", "init_std",
    "forced_decoder_ids", "apply_spec_augment", "mask_time_prob",
    "mask_time_length", "mask_time_min_masks", "mask_feature_prob",
    "mask_feature_length", "mask_feature_min_masks", "median_filter_width",
    "classifier_proj_size", "use_weighted_layer_sum",
    /* Mamba's: the sizes the mixer reads, and its initialisation, fusion
     * and kernel switches; residual_in_fp32 keeps the residual stream in
     * fp32 between the layers, which is not priced apart from the plan
     * dtype */
    "state_size", "conv_kernel", "expand", "time_step_rank", "use_conv_bias",
    "d_inner", "d_model", "fused_add_norm", "rms_norm", "ssm_cfg", "residual_in_fp32",
    "pad_vocab_size_multiple", "rescale_prenorm_residual", "time_step_floor",
    "time_step_init_scheme", "time_step_max", "time_step_min",
    "time_step_scale", "use_mambapy",
    /* Llama 4's: the dense width, the layers with experts, the NoPE
     * layers' temperature (attn_scale, floor_scale), and what changes no
     * figure */
    "intermediate_size_mlp", "interleave_moe_layer_step", "moe_layers",
    "attn_temperature_tuning", "attn_scale", "floor_scale",
    "no_rope_layer_interval", "for_llm_compressor",
    "norm_type",
    /* PretrainedConfig's and generation's defaults, dumped by older
     * transformers into every config */
    "return_dict", "output_hidden_states", "output_attentions", "torchscript",
    "use_bfloat16", "tf_legacy_loss", "pruned_heads", "chunk_size_feed_forward",
    "is_encoder_decoder", "add_cross_attention", "cross_attention_hidden_size",
    "finetuning_task", "prefix", "max_length", "min_length", "do_sample",
    "early_stopping", "num_beams", "num_beam_groups", "diversity_penalty",
    "temperature", "top_k", "top_p", "typical_p", "repetition_penalty",
    "length_penalty", "no_repeat_ngram_size", "encoder_no_repeat_ngram_size",
    "bad_words_ids", "num_return_sequences", "output_scores",
    "return_dict_in_generate", "forced_bos_token_id", "forced_eos_token_id",
    "remove_invalid_values", "exponential_decay_length_penalty",
    "suppress_tokens", "begin_suppress_tokens", "use_mrope", NULL,
};

/* Fields that would change the cost, which the importer does not model:
 * each is a warning naming it (R-HF-006). */
static const char *const cost_unmodelled[][2] = {
    {"num_nextn_predict_layers",
     "the multi-token-prediction module: not written, as the published "
     "parameter counts leave it out"},
    {"layer_types", "a per-layer attention kind"},
    {"attention_chunk_size", "chunked attention"},
    {"no_rope_layers", "layers without rotary embeddings"},
};

/* ---------------------------------------------------------- the config */

typedef struct Cfg {
  const char *path;
  const char *text; /* the file's bytes, for key positions */
  size_t len;
  json_t *root;
  json_t *outer; /* the whole config, when root is its text_config */
  const Family *fam;
  StrBuf read;      /* "  key value\n" for each field consulted, in order */
  const char *seen[64]; /* the keys consulted, to list each once */
  int nseen;
  /* where each top-level key is written, found in one pass (index_keys):
   * its spelling in the text -> 1 + its index in `at` */
  StrMap keys;
  struct KeyAt { char *key; int line, col; size_t off, len; } *at;
  size_t nat, cap_at;
  char *error;      /* the first error (malloc'd) */
} Cfg;

static void add_key(Cfg *c, const char *s, size_t n, int line, int col,
                    size_t off) {
  if (c->nat == c->cap_at) {
    c->cap_at = c->cap_at ? 2 * c->cap_at : 16;
    c->at = xrealloc(c->at, c->cap_at * sizeof *c->at);
  }
  char *key = xmalloc(n + 1);
  memcpy(key, s, n);
  key[n] = '\0';
  c->at[c->nat] = (struct KeyAt){key, line, col, off, n + 2};
  void **slot = strmap_ref(&c->keys, key);
  if (!*slot) *slot = (void *)(uintptr_t)(c->nat + 1); /* the first wins */
  c->nat++;
}

/* Indexes where each key of one object is written: a string followed by
 * ':' at depth `want` in the object that opens at byte `brace` (SIZE_MAX:
 * any at that depth, as the top level's), its line and column (1-based).
 * One pass, so a config of many keys is not rescanned for each
 * (R-HF-015). */
static void index_object(Cfg *c, int want, size_t brace) {
  int depth = 0, ln = 1;
  size_t bol = 0, open = 0; /* where the object read at depth `want` opened */
  for (size_t i = 0; i < c->len; i++) {
    char ch = c->text[i];
    if (ch == '\n') ln++, bol = i + 1;
    else if (ch == '{' || ch == '[') {
      if (++depth == want) open = i;
    } else if (ch == '}' || ch == ']') depth--;
    else if (ch == '"') {
      size_t start = i++;
      while (i < c->len && c->text[i] != '"') i += c->text[i] == '\\' ? 2 : 1;
      if (i >= c->len) return;
      size_t j = i + 1;
      while (j < c->len && strchr(" \t\r\n", c->text[j])) j++;
      if (depth == want && (brace == SIZE_MAX || open == brace) && j < c->len &&
          c->text[j] == ':')
        add_key(c, c->text + start + 1, i - start - 1, ln, (int)(start - bol) + 1,
                start);
    }
  }
}

static void index_keys(Cfg *c) { index_object(c, 1, SIZE_MAX); }

/* R-DIAG-001: a config that holds its language model in `text_config`
 * (Gemma 3, Llama 4) is read from that object, so its keys are found
 * there first, the top level's after them (the first found wins). */
static void index_text_config(Cfg *c) {
  uintptr_t k = (uintptr_t)strmap_get(&c->keys, "text_config");
  if (!k) return;
  size_t i = c->at[k - 1].off + c->at[k - 1].len; /* after the quoted key */
  while (i < c->len && c->text[i] != '{') i++;
  if (i >= c->len) return;
  for (size_t n = 0; n < c->nat; n++) free(c->at[n].key);
  c->nat = 0;
  strmap_free(&c->keys);
  index_object(c, 2, i);
  index_object(c, 1, SIZE_MAX);
}

static bool key_pos(const Cfg *c, const char *key, int *line, int *col) {
  uintptr_t k = (uintptr_t)strmap_get(&c->keys, key);
  if (!k) return false;
  *line = c->at[k - 1].line;
  *col = c->at[k - 1].col;
  return true;
}

/* "PATH:LINE:COL: " for `key`, or "PATH: " when it is not written. */
static void where(const Cfg *c, const char *key, StrBuf *sb) {
  int line, col;
  if (key && key_pos(c, key, &line, &col))
    sb_printf(sb, "%s:%d:%d: ", c->path, line, col);
  else
    sb_printf(sb, "%s: ", c->path);
}

static void cfg_fail(Cfg *c, const char *key, const char *fmt, ...)
    PRINTF_LIKE(3, 4);
static void cfg_fail(Cfg *c, const char *key, const char *fmt, ...) {
  if (c->error) return;
  StrBuf sb = {0};
  where(c, key, &sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  c->error = xstrdup(sb_str(&sb));
  sb_free(&sb);
}

/* The key under which canonical field `name` is written, or NULL. */
static const char *spelled(const Cfg *c, const char *name) {
  for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
    if (strcmp(aliases[i][0], name) == 0) {
      for (int j = 0; j < 5 && aliases[i][j]; j++) {
        json_t *v = json_object_get(c->root, aliases[i][j]);
        if (v && !json_is_null(v)) return aliases[i][j];
      }
      return NULL;
    }
  json_t *v = json_object_get(c->root, name);
  return v && !json_is_null(v) ? name : NULL;
}

/* A value as compact JSON, for a comment or a message: json_dumps escapes
 * the control characters below 0x20 but leaves DEL, which a terminal acts
 * on; it becomes \u007f, so the text still reads as the same JSON. */
static char *json_text(const json_t *v) {
  char *val = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  if (!val || !strchr(val, 0x7f)) return val;
  StrBuf sb = {0};
  for (const char *p = val; *p; p++)
    if (*p == 0x7f) sb_puts(&sb, "\\u007f");
    else sb_putc(&sb, *p);
  free(val);
  return sb.data;
}

static void note_read(Cfg *c, const char *key, const json_t *v) {
  for (int i = 0; i < c->nseen; i++)
    if (strcmp(c->seen[i], key) == 0) return;
  if (c->nseen < (int)(sizeof c->seen / sizeof *c->seen))
    c->seen[c->nseen++] = key;
  /* the key as a comment's text: a newline in it would end the comment;
   * json_text escapes the value's control characters itself */
  StrBuf k = {0};
  import_put_escaped(&k, key, IMPORT_COMMENT);
  char *val = json_text(v);
  sb_printf(&c->read, "#   %-34s %s\n", sb_str(&k), val ? val : "?");
  free(val);
  sb_free(&k);
}

/* Whether the family's configuration class gives field `name` a default
 * (in *value). */
static bool family_default(const Cfg *c, const char *name, int64_t *value) {
  for (size_t i = 0; i < sizeof family_defaults / sizeof *family_defaults; i++)
    if (strcmp(family_defaults[i].model_type, c->fam->model_type) == 0 &&
        strcmp(family_defaults[i].field, name) == 0) {
      if (value) *value = family_defaults[i].value;
      return true;
    }
  return false;
}

/* A field the config leaves out, taken from the family's defaults. */
static void note_default(Cfg *c, const char *name, int64_t value) {
  for (int i = 0; i < c->nseen; i++)
    if (strcmp(c->seen[i], name) == 0) return;
  if (c->nseen < (int)(sizeof c->seen / sizeof *c->seen))
    c->seen[c->nseen++] = name;
  sb_printf(&c->read, "#   %-34s %lld (absent: the %s default)\n", name,
            (long long)value, c->fam->model_type);
}

/* The value of canonical field `name` (noted as read), or NULL when the
 * config does not have it; *key is the spelling it has. */
static json_t *cfg_get(Cfg *c, const char *name, const char **key) {
  *key = spelled(c, name);
  if (!*key) return NULL;
  json_t *v = json_object_get(c->root, *key);
  note_read(c, *key, v);
  return v;
}

/* An integer field: its value, or `dflt` when absent (dflt < 0: required).
 * `min` is the least value it may have. */
static int64_t cfg_int(Cfg *c, const char *name, int64_t dflt, int64_t min) {
  const char *key;
  json_t *v = cfg_get(c, name, &key);
  int64_t d;
  if (!v && family_default(c, name, &d)) {
    note_default(c, name, d);
    return d;
  }
  if (!v) {
    if (dflt < 0)
      cfg_fail(c, NULL, "missing key '%s' (a %s config needs it)", name,
               c->fam->model_type);
    return dflt < 0 ? 1 : dflt;
  }
  double r = json_is_real(v) ? json_real_value(v) : 0;
  if (json_is_integer(v) || (json_is_real(v) && r == floor(r) && fabs(r) < 9e15)) {
    int64_t i = json_is_integer(v) ? (int64_t)json_integer_value(v) : (int64_t)r;
    if (i >= min) return i;
  }
  char *val = json_text(v);
  cfg_fail(c, key, "'%s' must be an integer of at least %lld, got %s", key,
           (long long)min, val ? val : "?");
  free(val);
  return dflt < 0 ? 1 : dflt;
}

static bool is_bool(const json_t *v) { return json_is_boolean(v); }
static bool is_real(const json_t *v) {
  return json_is_number(v) && json_number_value(v) >= 0;
}
static bool is_string(const json_t *v) { return json_is_string(v); }

/* Field `name` when it is of the kind `ok` accepts; NULL when absent or,
 * an error, of another kind (`want` says which). */
static json_t *cfg_kind(Cfg *c, const char *name, bool (*ok)(const json_t *),
                        const char *want) {
  const char *key;
  json_t *v = cfg_get(c, name, &key);
  if (v && !ok(v)) {
    cfg_fail(c, key, "'%s' must be %s", key, want);
    return NULL;
  }
  return v;
}

static bool cfg_bool(Cfg *c, const char *name, bool dflt) {
  json_t *v = cfg_kind(c, name, is_bool, "true or false");
  return v ? json_is_true(v) : dflt;
}

static double cfg_real(Cfg *c, const char *name, double dflt) {
  json_t *v = cfg_kind(c, name, is_real, "a number of at least 0");
  return v ? json_number_value(v) : dflt;
}

static const char *cfg_str(Cfg *c, const char *name, const char *dflt) {
  json_t *v = cfg_kind(c, name, is_string, "a string");
  return v ? json_string_value(v) : dflt;
}

/* ------------------------------------------------------------- the model */

typedef enum Phase { PH_PREFILL, PH_DECODE, PH_TRAIN } Phase;
static const char *const phase_names[] = {"prefill", "decode", "train", NULL};

/* The most layers a config may have (R-HF-015): thirty times the largest
 * published model's (Llama 3.1 405B has 126), and few enough that writing
 * one repeat per run of identical layers stays small. */
enum { HF_MAX_LAYERS = 4096, HF_MAX_RUNS = 256 };

/* -D names the importer reads (R-HF-003); parallel ones in parallel{}
 * key order. */
static const char *const par_keys[] = {"nodes", "gpus_per_node", "data",
                                        "tensor", "pipeline", "expert",
                                        "microbatches", "zero", NULL};
enum { NPAR = 8 };

/* Everything the generators read, resolved once. */
typedef struct Config {
  const Family *fam;
  uint64_t f;
  Phase phase;
  int64_t batch, seq, ctx;
  int64_t par[NPAR]; /* 0: not given */
  int64_t hidden, layers, heads, kv_heads, head_dim, inter, vocab, max_pos,
      type_vocab, rotary_dim;
  bool tied, qkv_bias, o_bias, mlp_bias, head_bias;
  int64_t positions; /* the positions a sequence may use (learned ones) */
  int64_t window;      /* 0: none */
  const char *act;     /* the op text: "silu", "gelu", ... */
  const char *act_key; /* what the config said */
  const char *dtype;
  /* experts */
  int64_t experts, top_k, moe_inter, shared_inter, first_dense, sparse_step;
  int64_t n_group, topk_group; /* group-limited routing; 0: none */
  bool *mlp_only; /* [layers]: listed in mlp_only_layers; NULL: none */
  bool *sliding_at; /* [layers]: a sliding-window layer (F_LAYER_TYPES) */
  /* multi-head latent attention */
  int64_t q_lora, kv_lora, nope, rope_dim, v_dim;
  double final_cap, attn_cap;
  const char *name;
  /* quantization_config, when honoured (R-HF-013): the projections'
   * weights in fp8, with one fp32 scale per block_out x block_in block
   * (0: one a tensor), their GEMMs at the fp8 peak */
  const char *qdtype;   /* fp8 (e4m3) or fp8_e5m2; NULL: not quantized */
  int64_t block_out, block_in;
  const char *qwarning; /* why quantization_config is not honoured */
  const char *qtrain;   /* the fp8 storage the train phase leaves aside */
  /* -D recompute= and -D sequence_parallel= (R-HF-017) */
  const char *recompute; /* "checkpoint", "checkpoint selective"; NULL: none */
  bool seq_par;
  /* an encoder-decoder (R-FAM-101; `layers` are the decoder's): the
   * encoder's layers and its input's length (src_positions: the most it
   * may have, 0: no limit), T5's relative position buckets, Whisper's mel
   * bins */
  int64_t enc_layers, src_seq, src_positions, buckets, mel_bins;
  /* the selective scan's sizes (mamba): the state, the conv's kernel, the
   * step size's rank ("auto": ceil(hidden_size / 16)) */
  int64_t d_state, d_conv, dt_rank;
  bool dt_rank_auto, conv_bias;
  /* [layers]: a layer without rotary embeddings, global (F_CHUNKED) */
  bool *nope_at;
  bool attn_temp; /* the NoPE layers scale q by a temperature */
} Config;

static int64_t par(const Config *m, const char *key) {
  for (int i = 0; i < NPAR; i++)
    if (strcmp(par_keys[i], key) == 0) return m->par[i];
  return 0;
}
static int64_t tp(const Config *m) {
  int64_t t = par(m, "tensor");
  return t > 0 ? t : 1;
}

/* The op hidden_act names (R-HF-005). */
static const char *act_op(const char *act) {
  static const char *const map[][2] = {
      {"silu", "silu(%s)"},           {"swish", "silu(%s)"},
      /* gelu's default is erf (R-KW-010, as PyTorch's); HF's gelu_new,
       * gelu_pytorch_tanh and gelu_fast are the tanh approximation */
      {"gelu", "gelu(%s)"},           {"gelu_python", "gelu(%s)"},
      {"gelu_new", "gelu(%s, approximate=\"tanh\")"},
      {"gelu_pytorch_tanh", "gelu(%s, approximate=\"tanh\")"},
      {"gelu_fast", "gelu(%s, approximate=\"tanh\")"},
      {"relu", "relu(%s)"},           {"tanh", "tanh(%s)"},
      {"sigmoid", "sigmoid(%s)"},
  };
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strcmp(map[i][0], act) == 0) return map[i][1];
  return NULL;
}

static const char *dtype_of(const char *torch) {
  static const char *const map[][2] = {
      {"float16", "fp16"}, {"bfloat16", "bf16"}, {"float32", "fp32"},
      {"float8_e4m3fn", "fp8"}, {"float", "fp32"}, {"half", "fp16"},
  };
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strcmp(map[i][0], torch) == 0) return map[i][1];
  return NULL;
}

/* Whether layer i (0-based) has routed experts, as the family's code
 * decides it: DeepSeek's first_k_dense_replace, Qwen's
 * decoder_sparse_step and mlp_only_layers. */
static bool layer_moe(const Config *m, int64_t i) {
  if (!(m->f & F_MOE) || m->experts == 0) return false;
  if (i < m->first_dense) return false;
  if (m->sparse_step > 1 && (i + 1) % m->sparse_step != 0) return false;
  return !m->mlp_only || !m->mlp_only[i];
}

static bool layer_nope(const Config *m, int64_t i) {
  return m->nope_at && m->nope_at[i];
}

static bool layer_sliding(const Config *m, int64_t i) {
  if (!m->window) return false;
  if (m->sliding_at) return m->sliding_at[i];
  if (m->f & F_ALT_SLIDING) return i % 2 == 0;
  return true;
}

/* ---------------------------------------------------------- the writer */

typedef struct Gen {
  const Config *m;
  const Cfg *cfg;
  StrBuf text;
  char **origins;
  size_t nlines, cap;
  int indent;
  /* R-DIAG-001: what each generated name's line came from, so a line
   * written without a key is placed where its weight or operand is:
   * name -> 1 + the index of its line */
  StrMap weights, values, lets; /* lets: those written from a key */
  StrBuf names;     /* the maps' keys (malloc'd), their pointers' bytes */
  size_t block[64]; /* 1 + the line opening each enclosing block */
  bool block_inferred[64]; /* its opener had no key of its own */
  bool keyed;       /* the last line's origin was its own key's */
  int64_t layer;    /* the first layer of the repeat being written */
} Gen;

/* `key "NAME" @OFFSET+LENGTH`: the key as written in the config (its
 * quotes included), or NULL when the config does not write it. */
static char *key_origin(const Cfg *c, const char *key) {
  uintptr_t k = key ? (uintptr_t)strmap_get(&c->keys, key) : 0;
  if (!k) return NULL;
  StrBuf sb = {0};
  sb_puts(&sb, "key ");
  import_put_escaped(&sb, key, IMPORT_QUOTED);
  sb_printf(&sb, " @%zu+%zu", c->at[k - 1].off, c->at[k - 1].len);
  return sb.data;
}

static bool ident_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_';
}

/* The next identifier of s[*i, n) into buf; false at the end. */
static bool next_ident(const char *s, size_t n, size_t *i, char *buf, size_t cap) {
  while (*i < n && !(ident_char(s[*i]) && !(s[*i] >= '0' && s[*i] <= '9'))) {
    if (s[*i] >= '0' && s[*i] <= '9')
      while (*i < n && ident_char(s[*i])) (*i)++;
    else
      (*i)++;
  }
  size_t k = 0;
  for (; *i < n && ident_char(s[*i]); (*i)++)
    if (k + 1 < cap) buf[k++] = s[*i];
  buf[k] = '\0';
  return k > 0;
}

static char *origin_of_line(const Gen *g, uintptr_t k) {
  return k && g->origins[k - 1] ? xstrdup(g->origins[k - 1]) : NULL;
}

/* A declaration is placed at the field that sizes it: the first size in
 * its shape other than hidden_size (intermediate_size for an MLP weight,
 * vocab_size for the head), else hidden_size. */
static char *shape_origin(const Gen *g, const char *shape, size_t n) {
  char id[64], *hidden = NULL;
  for (size_t i = 0; next_ident(shape, n, &i, id, sizeof id);) {
    uintptr_t k = (uintptr_t)strmap_get(&g->lets, id);
    char *o = k ? origin_of_line(g, k) : key_origin(g->cfg, spelled(g->cfg, id));
    if (!o) continue;
    if (strcmp(id, "hidden_size") != 0) {
      free(hidden);
      return o;
    }
    if (hidden) free(o);
    else hidden = o;
  }
  return hidden;
}

/* A statement is placed where the first weight it reads is, else where
 * its most recently written operand is. */
static char *operand_origin(const Gen *g, const char *rhs) {
  char id[64];
  uintptr_t latest = 0;
  size_t n = strlen(rhs);
  for (size_t i = 0; next_ident(rhs, n, &i, id, sizeof id);) {
    uintptr_t w = (uintptr_t)strmap_get(&g->weights, id);
    if (w && g->origins[w - 1]) return xstrdup(g->origins[w - 1]);
    uintptr_t v = (uintptr_t)strmap_get(&g->values, id);
    if (v > latest) latest = v;
  }
  return origin_of_line(g, latest);
}

/* Records the names line `s` (without its indentation) declares or
 * assigns, as written on line index `at`. */
static void record_names(Gen *g, const char *s, size_t at, bool keyed) {
  static const char *const decls[] = {"weight ", "buffer ", "cache "};
  StrMap *into = &g->values;
  if (keyed && strncmp(s, "let ", 4) == 0) s += 4, into = &g->lets;
  const char *end = strstr(s, " = ");
  for (int i = 0; i < 3; i++)
    if (strncmp(s, decls[i], strlen(decls[i])) == 0) {
      s += strlen(decls[i]);
      end = strstr(s, " : ");
      into = &g->weights;
    }
  if (!end || (into != &g->lets && strncmp(s, "let ", 4) == 0) || s[0] == '#')
    return;
  char id[64];
  for (size_t i = 0; next_ident(s, (size_t)(end - s), &i, id, sizeof id);) {
    if (strmap_get(into, id)) {
      *strmap_ref(into, id) = (void *)(uintptr_t)(at + 1);
      continue;
    }
    char *key = xstrdup(id); /* the map borrows its keys */
    sb_putn(&g->names, (const char *)&key, sizeof key);
    strmap_put(into, key, (void *)(uintptr_t)(at + 1));
  }
}

/* Where a line written without a key comes from: its shape's field, its
 * operands', the enclosing block's, the family's key. */
static char *inferred_origin(const Gen *g, const char *s) {
  char *o = NULL;
  const char *colon = strstr(s, " : ");
  if (colon && (!strncmp(s, "weight ", 7) || !strncmp(s, "buffer ", 7) ||
                !strncmp(s, "cache ", 6))) {
    const char *open = strchr(colon, '[');
    if (open) o = shape_origin(g, open, strcspn(open, "]"));
  } else if (strstr(s, " = ") && strncmp(s, "let ", 4) != 0 && s[0] != '#') {
    o = operand_origin(g, strstr(s, " = ") + 3);
  }
  for (int d = g->indent; !o && d >= 0; d--)
    if (d < 64) o = origin_of_line(g, g->block[d]);
  if (!o) {
    const char *family = spelled(g->cfg, "model_type");
    o = key_origin(g->cfg, family ? family : spelled(g->cfg, "architectures"));
  }
  return o;
}

/* One line of text, indented, with its origin: the config key it comes
 * from, or when the config does not write that key (NULL: none given),
 * the one inferred_origin finds. */
static void line(Gen *g, const char *key, const char *fmt, ...)
    PRINTF_LIKE(3, 4);
static void line(Gen *g, const char *key, const char *fmt, ...) {
  if (g->nlines == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 256;
    g->origins = xrealloc(g->origins, g->cap * sizeof *g->origins);
  }
  size_t at = g->text.len;
  for (int i = 0; i < g->indent; i++) sb_puts(&g->text, "  ");
  size_t body = g->text.len;
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&g->text, fmt, ap);
  va_end(ap);
  /* no trailing blanks: an empty line is empty */
  while (g->text.len > at && g->text.data[g->text.len - 1] == ' ')
    g->text.data[--g->text.len] = '\0';
  const char *s = g->text.data && g->text.len > body ? g->text.data + body : "";
  char *origin = key_origin(g->cfg, key);
  bool keyed = g->keyed = origin != NULL;
  if (!origin && *s) origin = inferred_origin(g, s);
  g->origins[g->nlines] = origin;
  if (*s) record_names(g, s, g->nlines, keyed);
  g->nlines++;
  sb_putc(&g->text, '\n');
}

static void blank(Gen *g) { line(g, NULL, "%s", ""); }

static void open_block(Gen *g, const char *key, const char *head) {
  line(g, key, "%s {", head);
  g->indent++;
  if (g->indent < 64) {
    g->block[g->indent] = g->nlines;
    g->block_inferred[g->indent] = !g->keyed;
  }
}
/* A block opened without a key (`fused qkv {`) is placed where its first
 * statement is, a finding on a fused region being one on its kernels. */
static void close_block(Gen *g) {
  size_t open = g->indent < 64 ? g->block[g->indent] : 0;
  if (open && g->block_inferred[g->indent] && open < g->nlines &&
      g->origins[open]) {
    free(g->origins[open - 1]);
    g->origins[open - 1] = xstrdup(g->origins[open]);
  }
  if (g->indent < 64) g->block[g->indent] = 0;
  g->indent--;
  line(g, NULL, "}");
}

/* A weight's shape text, divided by the tensor degree on axis `split`
 * (-1: replicated), and its shard=tensor tag. */
static const char *sharded(const Gen *g, char *buf, size_t n,
                           const char *rows, const char *cols, int split) {
  bool t = tp(g->m) > 1 && split >= 0;
  if (!cols)
    snprintf(buf, n, "[%s%s]%s", rows, t ? " / tensor" : "",
             t ? " shard=tensor" : "");
  else
    snprintf(buf, n, "[%s%s, %s%s]%s", rows, t && split == 0 ? " / tensor" : "",
             cols, t && split == 1 ? " / tensor" : "", t ? " shard=tensor" : "");
  return buf;
}

/* "weight NAME : [rows, cols]", column- (split 1) or row-parallel (0). */
static void weight(Gen *g, const char *key, const char *name,
                   const char *rows, const char *cols, int split,
                   const char *comment) {
  char shape[256];
  sharded(g, shape, sizeof shape, rows, cols, split);
  if (comment)
    line(g, key, "weight %s : %s  # %s", name, shape, comment);
  else
    line(g, key, "weight %s : %s", name, shape);
}

/* A linear layer's weight, "[rows, cols]" as weight() writes it, stored
 * as the checkpoint's quantization_config says (R-HF-013): fp8 with one
 * fp32 scale per block_out x block_in block, in PyTorch's [out, in]
 * layout (DeepSeek's weight_scale_inv), or one a tensor.  The scales are
 * buffers: resident, no parameters. */
static void proj(Gen *g, const char *key, const char *name, const char *rows,
                 const char *cols, int split, const char *comment) {
  const Config *m = g->m;
  if (!m->qdtype) {
    weight(g, key, name, rows, cols, split, comment);
    return;
  }
  char shape[256], in[160], out[160];
  sharded(g, shape, sizeof shape, rows, cols, split);
  bool t = tp(m) > 1;
  snprintf(in, sizeof in, "%s%s", rows, t && split == 0 ? " / tensor" : "");
  snprintf(out, sizeof out, "%s%s", cols, t && split == 1 ? " / tensor" : "");
  if (comment)
    line(g, key, "weight %s : %s%s  # %s", name, m->qdtype, shape, comment);
  else
    line(g, key, "weight %s : %s%s", name, m->qdtype, shape);
  if (m->block_out) {
    line(g, "quantization_config",
         "buffer %s_scale_inv : fp32[cdiv(%s, %lld), cdiv(%s, %lld)]", name,
         out, (long long)m->block_out, in, (long long)m->block_in);
  } else {
    line(g, "quantization_config", "buffer %s_scale : fp32[1]  # one scale", name);
  }
}

/* ", precision=fp8" on the GEMM of a quantized projection: fp8 weights
 * times activations quantized on the fly (R-HF-013). */
static const char *qp(const Gen *g) {
  return g->m->qdtype ? ", precision=fp8" : "";
}

/* The norm of `x` into `y` with weight `w` (and its bias for LayerNorm). */
static void norm(Gen *g, const char *y, const char *x, const char *w,
                 const char *dim) {
  if (g->m->f & F_RMSNORM) {
    line(g, NULL, "weight %s : [%s]", w, dim);
    line(g, NULL, "%s = rmsnorm(%s, %s)", y, x, w);
  } else {
    line(g, NULL, "weight %s, %s_bias : [%s]", w, w, dim);
    line(g, NULL, "%s = layernorm(%s, %s, %s_bias)", y, x, w, w);
  }
}

/* The key a projection's bias comes from: the family's bias field
 * (use_bias, bias), none where the family always has it, else `field`. */
static const char *bias_origin(const Gen *g, const char *field) {
  const Family *fam = g->m->fam;
  if (fam->bias_field && spelled(g->cfg, fam->bias_field)) return fam->bias_field;
  if (fam->features & (F_ALL_BIAS | F_QKV_BIAS | F_MLP_BIAS)) return NULL;
  return spelled(g->cfg, field);
}

/* [batch, seq, HEADS, DIM] -> [batch, HEADS, seq, DIM], and back. */
static void heads_out(Gen *g, const char *v, const char *heads,
                      const char *dim) {
  line(g, NULL, "%s = transpose(reshape(%s, [batch, seq, %s, %s]), [0, 2, 1, 3])",
       v, v, heads, dim);
}

/* The heads on one GPU: "num_attention_heads" or "... / tensor". */
static const char *per_gpu(const Gen *g, char *buf, size_t n, const char *x) {
  snprintf(buf, n, tp(g->m) > 1 ? "%s / tensor" : "%s", x);
  return buf;
}

/* A row-parallel projection's partial sums, summed over the tensor group
 * (R-HF-011); nothing without tensor parallelism. */
static void tp_allreduce(Gen *g, const char *v) {
  if (tp(g->m) > 1) line(g, "tensor", "%s = allreduce(%s, group=tensor)", v, v);
}

/* x = add(x, o), or for the parallel residual (neox) nothing yet. */
static void residual(Gen *g, const char *o) {
  if ((g->m->f & F_PARALLEL_RESID) && strcmp(o, "e") == 0)
    line(g, "use_parallel_residual", "x = add(x, attn_out)  # parallel residual");
  line(g, NULL, "x = add(x, %s)", o);
}

/* The KV cache of one layer in decode (R-HF-008): its declaration and the
 * appends of this step's keys and values.  `len` is the cached length. */
static void kv_cache(Gen *g, bool sliding, const char *heads) {
  const char *len = sliding ? "window_ctx" : "ctx";
  /* where sliding and global layers mix, their caches have distinct names:
   * a sliding layer's cache is shorter, and a name bound by one run of
   * layers and bound again by the next must keep its type (R-FAM-005) */
  const Config *m = g->m;
  const char *sfx = sliding && (m->sliding_at || (m->f & F_ALT_SLIDING)) ? "_win" : "";
  line(g, sliding ? "sliding_window" : NULL,
       "cache k_cache%s, v_cache%s : [batch, %s, %s, head_dim]", sfx, sfx, heads, len);
  /* distinct names: a sliding layer's keys are shorter than a global one's */
  const char *kv = sliding ? "win" : "all";
  line(g, NULL, "k_%s = append(k_cache%s, k, axis=2)  # [batch, %s, %s + seq, head_dim]",
       kv, sfx, heads, len);
  line(g, NULL, "v_%s = append(v_cache%s, v, axis=2)", kv, sfx);
}

/* The attention op on q and this step's keys and values, with the
 * options the family has (ALiBi, sinks: R-FAM-004, R-FAM-006). */
static void attention_line(Gen *g, bool sliding) {
  const Config *m = g->m;
  const char *kv = m->f & F_ENCODER            ? "k, v"
                   : m->phase != PH_DECODE     ? "k, v, causal=true"
                   : sliding                   ? "k_win, v_win"
                                               : "k_all, v_all";
  if (m->f & F_SINKS) {
    char s[96];
    line(g, NULL, "weight sinks : %s  # a learned logit a head, read by the "
         "attention kernel (sinks=true)",
         sharded(g, s, sizeof s, "num_attention_heads", NULL, 0));
  }
  line(g, NULL, "a = attention(q, %s%s%s)", kv, m->f & F_ALIBI ? ", alibi=true" : "",
       m->f & F_SINKS ? ", sinks=true" : "");
}

static const char *attention_call(const Gen *g, bool sliding) {
  if (g->m->f & F_ENCODER) return "attention(q, k, v)";
  /* A decode step's new tokens follow the whole cache. */
  if (g->m->phase == PH_DECODE)
    return sliding ? "attention(q, k_win, v_win)" : "attention(q, k_all, v_all)";
  return "attention(q, k, v, causal=true)";
}

/* Rotary embeddings on q and k: whole heads, or the first rotary_dim of
 * each (gpt_neox's rotary_pct). */
static void rotary(Gen *g) {
  const Config *m = g->m;
  if (!(m->f & F_ROPE)) return;
  if (m->rotary_dim == m->head_dim) {
    line(g, NULL, "q = rope(q, cos, sin)");
    line(g, NULL, "k = rope(k, cos, sin)");
    return;
  }
  const char *key = spelled(g->cfg, "rotary_dim")   ? "rotary_dim"
                    : spelled(g->cfg, "rotary_pct") ? "rotary_pct"
                                                    : "partial_rotary_factor";
  for (int i = 0; i < 2; i++) {
    const char *v = i ? "k" : "q";
    line(g, key, "%s_rot, %s_pass = split(%s, [rotary_dim, head_dim - rotary_dim], axis=-1)",
         v, v, v);
    line(g, NULL, "%s = concat([rope(%s_rot, cos, sin), %s_pass], axis=-1)", v,
         v, v);
  }
}

/* Llama 4's positions (R-FAM-204): a rotary layer gets rope and, with
 * use_qk_norm, Llama4TextL2Norm of each head of q and k after it (no
 * weight: a unit-scale buffer, no parameter); a NoPE layer gets neither,
 * and with attn_temperature_tuning its q is scaled by a temperature a
 * position. */
static void llama4_positions(Gen *g) {
  const Config *m = g->m;
  if (layer_nope(m, g->layer)) {
    line(g, "no_rope_layers", "# a NoPE layer: no rotary embeddings, global attention");
    if (m->attn_temp)
      line(g, "attn_temperature_tuning", "q = mul(q, attn_scales)  # the temperature");
    return;
  }
  rotary(g);
  if (m->f & F_QK_NORM) {
    line(g, "use_qk_norm", "buffer qk_unit : [head_dim]  # Llama4TextL2Norm has "
         "no weight: a unit scale, no parameter");
    line(g, NULL, "q = rmsnorm(q, qk_unit)");
    line(g, NULL, "k = rmsnorm(k, qk_unit)");
  }
}

/* OLMo 2's q_norm and k_norm: one RMSNorm over all of q and of k, before
 * the heads are split.  Under -D tensor each GPU norms its own heads: the
 * statistic over the whole width would add an all-reduce of one value a
 * token, which is left out. */
static void qk_norm_full(Gen *g) {
  char s[128];
  line(g, NULL, "weight q_norm : %s", sharded(g, s, sizeof s,
       "num_attention_heads * head_dim", NULL, 0));
  line(g, NULL, "weight k_norm : %s", sharded(g, s, sizeof s,
       "num_key_value_heads * head_dim", NULL, 0));
  line(g, NULL, "q = rmsnorm(q, q_norm)  # over all the heads");
  line(g, NULL, "k = rmsnorm(k, k_norm)");
}

/* Prefill and train write full causal attention where the kernel sees a
 * window or a chunk of keys: a comment says so. */
static void window_comment(Gen *g) {
  const Config *m = g->m;
  if (m->window && m->phase != PH_DECODE && (m->f & F_CHUNKED) &&
      layer_sliding(m, g->layer))
    line(g, "attention_chunk_size",
         "# attention_chunk_size %lld: a query sees the keys of its chunk; the "
         "attention op has no chunks, so this is full causal attention (more "
         "than the kernel does when seq > attention_chunk_size)",
         (long long)m->window);
  else if (m->window && m->phase != PH_DECODE && !(m->f & F_CHUNKED))
    line(g, "sliding_window",
         "# sliding_window %lld%s: a query sees at most that many keys; the "
         "attention op has no window, so this is full causal attention "
         "(more than the kernel does when seq > sliding_window)",
         (long long)m->window, m->f & F_ALT_SLIDING ? " on every other layer"
                               : m->sliding_at ? " on the sliding layers"
                                               : "");
}

/* Multi-head attention with grouped KV heads: norms, projections, rotary,
 * the cache, the attention kernel and the output projection. */
static void emit_attention(Gen *g, bool sliding) {
  const Config *m = g->m;
  char h[64], kvh[64];
  per_gpu(g, h, sizeof h, "num_attention_heads");
  per_gpu(g, kvh, sizeof kvh, "num_key_value_heads");
  /* the biases come from attention_bias unless the family always has them */
  const char *bias_key = bias_origin(g, "attention_bias");
  if (m->f & F_FUSED_QKV) {
    line(g, NULL, "# q, k and v: one weight (%s)", m->fam->qkv_name);
    proj(g, "num_key_value_heads", "qkv_proj", "hidden_size",
         "(num_attention_heads + 2 * num_key_value_heads) * head_dim", 1,
         NULL);
    if (m->qkv_bias)
      line(g, bias_key, "weight qkv_proj_bias : [(num_attention_heads + 2 * "
                        "num_key_value_heads) * head_dim%s]%s",
           tp(m) > 1 ? " / tensor" : "", tp(m) > 1 ? " shard=tensor" : "");
    open_block(g, NULL, "fused qkv");
    line(g, NULL, "qkv = matmul(h, qkv_proj%s)", qp(g));
    if (m->qkv_bias) line(g, NULL, "qkv = add(qkv, qkv_proj_bias)");
    close_block(g);
    line(g, NULL,
         "q, k, v = split(qkv, [%s * head_dim, %s * head_dim, %s * head_dim], "
         "axis=-1)",
         h, kvh, kvh);
  } else {
    proj(g, "num_attention_heads", "q_proj", "hidden_size",
         "num_attention_heads * head_dim", 1, NULL);
    proj(g, "num_key_value_heads", "k_proj", "hidden_size",
         "num_key_value_heads * head_dim", 1, NULL);
    proj(g, "num_key_value_heads", "v_proj", "hidden_size",
         "num_key_value_heads * head_dim", 1, NULL);
    if (m->qkv_bias) {
      char s[128];
      line(g, bias_key, "weight q_proj_bias : %s",
           sharded(g, s, sizeof s, "num_attention_heads * head_dim", NULL, 0));
      line(g, bias_key, "weight k_proj_bias, v_proj_bias : %s",
           sharded(g, s, sizeof s, "num_key_value_heads * head_dim", NULL, 0));
    }
    open_block(g, NULL, "fused qkv");
    const char *v3[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; i++) {
      line(g, NULL, "%s = matmul(h, %s_proj%s)", v3[i], v3[i], qp(g));
      if (m->qkv_bias) line(g, NULL, "%s = add(%s, %s_proj_bias)", v3[i], v3[i], v3[i]);
    }
    close_block(g);
  }
  if (m->f & F_QK_NORM_FULL) qk_norm_full(g);
  heads_out(g, "q", h, "head_dim");
  heads_out(g, "k", kvh, "head_dim");
  heads_out(g, "v", kvh, "head_dim");
  if ((m->f & F_QK_NORM) && !(m->f & F_CHUNKED)) {
    line(g, NULL, "weight q_norm, k_norm : [head_dim]  # RMSNorm of each head");
    line(g, NULL, "q = rmsnorm(q, q_norm)");
    line(g, NULL, "k = rmsnorm(k, k_norm)");
  }
  if (m->f & F_CHUNKED) llama4_positions(g);
  else rotary(g);
  if (m->phase == PH_DECODE) kv_cache(g, sliding, kvh);
  window_comment(g);
  if (m->attn_cap > 0)
    line(g, "attn_logit_softcapping",
         "# attn_logit_softcapping %g: cap * tanh(score / cap) inside the "
         "attention kernel (3 FLOPs a score, not counted)",
         m->attn_cap);
  attention_line(g, sliding);
  line(g, NULL, "a = reshape(transpose(a, [0, 2, 1, 3]), [batch, seq, %s * head_dim])", h);
  proj(g, NULL, "o_proj", "num_attention_heads * head_dim", "hidden_size", 0,
       NULL);
  if (m->o_bias) line(g, NULL, "weight o_proj_bias : [hidden_size]");
}

/* Multi-head latent attention (DeepSeek-V2/V3, R-HF-010): q through the
 * q_lora_rank bottleneck, k and v from one compressed latent of
 * kv_lora_rank plus a shared rotary key of qk_rope_head_dim.  Prefill and
 * train expand the latent to per-head keys and values (kv_b_proj); decode
 * caches the latent and absorbs kv_b_proj into q and the output, as
 * serving engines (vLLM, SGLang) run it. */
static void emit_mla(Gen *g) {
  const Config *m = g->m;
  char h[64];
  per_gpu(g, h, sizeof h, "num_attention_heads");
  if (m->q_lora) {
    proj(g, "q_lora_rank", "q_a_proj", "hidden_size", "q_lora_rank", -1, NULL);
    line(g, NULL, "cq = matmul(h, q_a_proj%s)", qp(g));
    norm(g, "cq", "cq", "q_a_layernorm", "q_lora_rank");
    proj(g, NULL, "q_b_proj", "q_lora_rank",
         "num_attention_heads * (qk_nope_head_dim + qk_rope_head_dim)", 1, NULL);
    line(g, NULL, "q = matmul(cq, q_b_proj%s)", qp(g));
  } else {
    proj(g, "q_lora_rank", "q_proj", "hidden_size",
         "num_attention_heads * (qk_nope_head_dim + qk_rope_head_dim)", 1,
         "q_lora_rank null: a full-rank q");
    line(g, NULL, "q = matmul(h, q_proj%s)", qp(g));
  }
  heads_out(g, "q", h, "qk_nope_head_dim + qk_rope_head_dim");
  line(g, NULL, "q_nope, q_pe = split(q, [qk_nope_head_dim, qk_rope_head_dim], axis=-1)");
  proj(g, "kv_lora_rank", "kv_a_proj_with_mqa", "hidden_size",
       "kv_lora_rank + qk_rope_head_dim", -1, NULL);
  line(g, NULL, "kv = matmul(h, kv_a_proj_with_mqa%s)", qp(g));
  line(g, NULL, "ckv, k_pe = split(kv, [kv_lora_rank, qk_rope_head_dim], axis=-1)");
  norm(g, "ckv", "ckv", "kv_a_layernorm", "kv_lora_rank");
  line(g, NULL, "k_pe = unsqueeze(k_pe, axis=1)  # [batch, 1, seq, qk_rope_head_dim]: one key for all heads");
  line(g, NULL, "q_pe = rope(q_pe, cos, sin)");
  line(g, NULL, "k_pe = rope(k_pe, cos, sin)");
  proj(g, NULL, "kv_b_proj", "kv_lora_rank",
       "num_attention_heads * (qk_nope_head_dim + v_head_dim)", 1, NULL);
  if (m->phase != PH_DECODE) {
    line(g, NULL, "kvh = matmul(ckv, kv_b_proj%s)", qp(g));
    heads_out(g, "kvh", h, "qk_nope_head_dim + v_head_dim");
    line(g, NULL, "k_nope, v = split(kvh, [qk_nope_head_dim, v_head_dim], axis=-1)");
    line(g, NULL, "k = concat([k_nope, expand(k_pe, [-1, %s, -1, -1])], axis=-1)", h);
    line(g, NULL, "q = concat([q_nope, q_pe], axis=-1)");
    line(g, NULL, "a = %s  # [batch, heads, seq, v_head_dim]", attention_call(g, false));
  } else {
    line(g, NULL, "# decode: the cache holds the latent, kv_b_proj is absorbed");
    line(g, "kv_lora_rank",
         "cache kv_cache : [batch, 1, ctx, kv_lora_rank + qk_rope_head_dim]");
    line(g, NULL, "c = concat([unsqueeze(ckv, axis=1), k_pe], axis=-1)");
    line(g, NULL, "c = append(kv_cache, c, axis=2)  # [batch, 1, ctx + seq, kv_lora_rank + qk_rope_head_dim]");
    if (m->qdtype)
      line(g, "quantization_config", "# the absorbed products read kv_b_proj "
           "at %s and run at the activations' peak, as DeepSeek's inference "
           "code dequantizes it for them", m->qdtype);
    line(g, NULL, "w_kv = reshape(kv_b_proj, [kv_lora_rank, %s, qk_nope_head_dim + v_head_dim])", h);
    line(g, NULL, "w_uk, w_uv = split(w_kv, [qk_nope_head_dim, v_head_dim], axis=-1)");
    line(g, NULL, "q_lat = matmul(q_nope, transpose(w_uk, [1, 2, 0]))  # [batch, heads, seq, kv_lora_rank]");
    line(g, NULL, "q = concat([q_lat, q_pe], axis=-1)");
    line(g, NULL, "c_v = slice(c, axis=-1, start=0, end=kv_lora_rank)");
    line(g, NULL, "a = attention(q, c, c_v)  # [batch, heads, seq, kv_lora_rank]");
    line(g, NULL, "a = matmul(a, transpose(w_uv, [1, 0, 2]))  # [batch, heads, seq, v_head_dim]");
  }
  line(g, NULL, "a = reshape(transpose(a, [0, 2, 1, 3]), [batch, seq, %s * v_head_dim])", h);
  proj(g, NULL, "o_proj", "num_attention_heads * v_head_dim", "hidden_size", 0,
       NULL);
}

/* The attention block's output projection and residual: o = a W_o (+ b),
 * summed over the tensor group, added to x (later, for the parallel
 * residual), or normed after (the encoder's post-norm, gemma2's
 * post_attention_layernorm). */
static void attention_out(Gen *g) {
  const Config *m = g->m;
  bool later = m->f & F_PARALLEL_RESID;
  bool tail = !later && tp(m) == 1 && !(m->f & F_SANDWICH);
  open_block(g, NULL, tail ? "fused attn_out" : "fused o_proj");
  line(g, NULL, "o = matmul(a, o_proj%s)", qp(g));
  if (m->o_bias && tp(m) == 1) line(g, NULL, "o = add(o, o_proj_bias)");
  if (tail) residual(g, "o");
  close_block(g);
  tp_allreduce(g, "o");
  if (m->o_bias && tp(m) > 1) line(g, NULL, "o = add(o, o_proj_bias)");
  if (m->f & F_SANDWICH) norm(g, "o", "o", "post_attention_layernorm", "hidden_size");
  if (!tail && !later) residual(g, "o");
  if (later) line(g, NULL, "attn_out = o");
  if (m->f & F_ENCODER) norm(g, "x", "x", "attention_layernorm", "hidden_size");
}

/* A dense MLP of width `width` on `h` into `out`, weights named with
 * `prefix` (the shared expert's "shared_"), sharded over the tensor
 * group. */
static void mlp_body(Gen *g, const char *prefix, const char *width,
                     const char *out, bool add_residual, const char *scale) {
  const Config *m = g->m;
  char act[96], gv[32], region[64];
  snprintf(gv, sizeof gv, "%sg", prefix); /* distinct per MLP: a later */
  snprintf(act, sizeof act, m->act, gv);  /* repeat would carry it */
  const char *bk = bias_origin(g, "mlp_bias");
  if (m->f & F_GATED) {
    if (m->f & F_FUSED_GATE_UP) {
      char w2[128];
      snprintf(w2, sizeof w2, "2 * %s", width);
      proj(g, NULL, "gate_up_proj", "hidden_size", w2, 1, "gate and up, one weight");
    } else {
      char n1[64], n2[64];
      snprintf(n1, sizeof n1, "%sgate_proj", prefix);
      snprintf(n2, sizeof n2, "%sup_proj", prefix);
      proj(g, NULL, n1, "hidden_size", width, 1, NULL);
      proj(g, NULL, n2, "hidden_size", width, 1, NULL);
    }
    char dn[64];
    snprintf(dn, sizeof dn, "%sdown_proj", prefix);
    proj(g, NULL, dn, width, "hidden_size", 0, NULL);
    if (m->mlp_bias) {
      char s[128], w2[128];
      snprintf(w2, sizeof w2, "2 * %s", width);
      if (m->f & F_FUSED_GATE_UP)
        line(g, bk, "weight gate_up_proj_bias : %s", sharded(g, s, sizeof s, w2, NULL, 0));
      else
        line(g, bk, "weight %sgate_proj_bias, %sup_proj_bias : %s", prefix, prefix,
             sharded(g, s, sizeof s, width, NULL, 0));
      line(g, bk, "weight %sdown_proj_bias : [hidden_size]", prefix);
    }
    snprintf(region, sizeof region, "fused %sgate_up", prefix);
    open_block(g, NULL, region);
    if (m->f & F_FUSED_GATE_UP) {
      line(g, NULL, "gu = matmul(h, gate_up_proj%s)", qp(g));
      if (m->mlp_bias) line(g, NULL, "gu = add(gu, gate_up_proj_bias)");
    } else {
      line(g, NULL, "%sg = matmul(h, %sgate_proj%s)", prefix, prefix, qp(g));
      if (m->mlp_bias) line(g, NULL, "%sg = add(%sg, %sgate_proj_bias)", prefix, prefix, prefix);
      line(g, NULL, "%su = matmul(h, %sup_proj%s)", prefix, prefix, qp(g));
      if (m->mlp_bias) line(g, NULL, "%su = add(%su, %sup_proj_bias)", prefix, prefix, prefix);
    }
    close_block(g);
    if (m->f & F_FUSED_GATE_UP)
      line(g, NULL, "%sg, %su = split(gu, 2, axis=-1)", prefix, prefix);
    snprintf(region, sizeof region, "fused %sact_mul", prefix);
    open_block(g, NULL, region);
    line(g, m->act_key, "%s = %s", gv, act);
    line(g, NULL, "%sg = mul(%sg, %su)", prefix, prefix, prefix);
    close_block(g);
    if (scale) line(g, NULL, "%sg = mul(%sg, %s)", prefix, prefix, scale);
    snprintf(region, sizeof region, "fused %sdown", prefix);
    open_block(g, NULL, region);
    line(g, NULL, "%s = matmul(%sg, %sdown_proj%s)", out, prefix, prefix, qp(g));
    if (m->mlp_bias && tp(m) == 1)
      line(g, NULL, "%s = add(%s, %sdown_proj_bias)", out, out, prefix);
    if (add_residual) residual(g, out);
    close_block(g);
  } else {
    proj(g, NULL, "up_proj", "hidden_size", width, 1, NULL);
    if (m->mlp_bias) {
      char s[128];
      line(g, bk, "weight up_proj_bias : %s", sharded(g, s, sizeof s, width, NULL, 0));
    }
    proj(g, NULL, "down_proj", width, "hidden_size", 0, NULL);
    if (m->mlp_bias) line(g, bk, "weight down_proj_bias : [hidden_size]");
    snprintf(region, sizeof region, "fused %sup", prefix);
    open_block(g, NULL, region);
    line(g, NULL, "g = matmul(h, up_proj%s)", qp(g));
    if (m->mlp_bias) line(g, NULL, "g = add(g, up_proj_bias)");
    line(g, m->act_key, "g = %s", act);
    close_block(g);
    snprintf(region, sizeof region, "fused %sdown", prefix);
    open_block(g, NULL, region);
    line(g, NULL, "%s = matmul(g, down_proj%s)", out, qp(g));
    if (m->mlp_bias && tp(m) == 1) line(g, NULL, "%s = add(%s, down_proj_bias)", out, out);
    if (add_residual) residual(g, out);
    close_block(g);
  }
}

/* Routed experts (R-HF-009): the router, then one expert written on all the
 * tokens inside `experts E top K { }`, and the shared experts beside. */
static void emit_moe(Gen *g) {
  const Config *m = g->m;
  weight(g, "num_experts", "gate", "hidden_size", "num_experts", -1, "the router");
  line(g, NULL, "router_logits = matmul(h, gate)");
  if (m->f & F_ROUTER_BIAS) {
    line(g, NULL, "weight gate_bias : [num_experts]");
    line(g, NULL, "router_logits = add(router_logits, gate_bias)");
  }
  if (m->f & F_TOPK_SIGMOID) {
    line(g, "num_experts_per_tok",
         "topk_logits, topk_idx = topk(router_logits, num_experts_per_tok, axis=-1)");
    line(g, NULL, "topk_weights = sigmoid(topk_logits)  # they scale each "
         "expert's input (Llama4TextMoe), priced as the combine");
  } else {
    if (m->f & F_SIGMOID_ROUTER) {
      line(g, "scoring_func", "weight e_score_correction_bias : [num_experts]");
      line(g, NULL, "scores = add(sigmoid(router_logits), e_score_correction_bias)");
    } else {
      line(g, NULL, "scores = softmax(router_logits, axis=-1)");
    }
    line(g, "num_experts_per_tok",
         "topk_weights, topk_idx = topk(scores, num_experts_per_tok, axis=-1)");
  }
  /* Expert parallelism: the experts block itself prices the dispatch and
   * combine all-to-alls over the expert group (R-MOE-006), so they are not
   * written here (they would be counted twice); a comment says so. */
  if (par(m, "expert") > 1)
    line(g, "expert", "# expert parallelism: the experts block's dispatch and combine "
         "all-to-alls over the expert group are priced with it (R-MOE-006)");
  if (m->n_group) {
    line(g, "topk_group", "# group-limited routing: a token's experts lie in "
         "topk_group of n_group groups, and the dispatch sends it once per GPU "
         "they sit on (R-MOE-007)");
    open_block(g, "num_experts", "experts num_experts top num_experts_per_tok "
               "n_group=n_group topk_group=topk_group");
  } else {
    open_block(g, "num_experts", "experts num_experts top num_experts_per_tok");
  }
  mlp_body(g, "expert_", "moe_intermediate_size", "e", false, NULL);
  close_block(g);
  if (m->f & F_SHARED_EXPERT) {
    /* Under tensor parallelism s is a partial sum (R-PAR-008), so the
     * gate, one scalar a token, scales the column-parallel activation
     * before the down projection instead: the same product. */
    bool gate = m->f & F_SHARED_GATE, early = gate && tp(m) > 1;
    if (early) {
      line(g, NULL, "weight shared_expert_gate : [hidden_size, 1]");
      line(g, NULL, "# the gate scales the activation: s is this GPU's partial sum");
      line(g, NULL, "shared_scale = sigmoid(matmul(h, shared_expert_gate))");
    }
    mlp_body(g, "shared_", "shared_intermediate_size", "s", false,
             early ? "shared_scale" : NULL);
    if (gate && !early) {
      line(g, NULL, "weight shared_expert_gate : [hidden_size, 1]");
      line(g, NULL, "s = mul(s, sigmoid(matmul(h, shared_expert_gate)))");
    }
    line(g, NULL, "e = add(e, s)");
  }
}

/* The MLP block: its norm, the dense MLP or the experts, the residual. */
static void emit_mlp_block(Gen *g, bool moe) {
  const Config *m = g->m;
  if (m->f & (F_ENCODER | F_NO_PRENORM)) line(g, NULL, "h = x");
  else if ((m->f & F_ONE_NORM) && (m->f & F_PARALLEL_RESID))
    line(g, NULL, "# the MLP reads the attention's norm, h");
  else
    norm(g, "h", "x", m->f & F_SANDWICH ? "pre_feedforward_layernorm"
                                        : "post_attention_layernorm",
         "hidden_size");  /* neox: x is still the layer's input */
  bool tail = !moe && tp(m) == 1 && !(m->f & F_SANDWICH);
  if (moe) emit_moe(g);
  else mlp_body(g, "", "intermediate_size", "e", tail, NULL);
  tp_allreduce(g, "e");
  if (m->mlp_bias && !moe && tp(m) > 1) line(g, NULL, "e = add(e, down_proj_bias)");
  if (m->f & F_SANDWICH) norm(g, "e", "e", "post_feedforward_layernorm", "hidden_size");
  if (!tail) residual(g, "e");
  if (m->f & F_ENCODER) norm(g, "x", "x", "output_layernorm", "hidden_size");
}

/* The causal depthwise conv1d of Mamba's mixer on xs [batch,
 * intermediate_size, seq], activated, into xc.  Prefill and train pad by
 * conv_kernel - 1 and keep the first seq outputs (PyTorch's nn.Conv1d, as
 * MambaMixer slices it); a decode step convolves the cached last inputs
 * and its own, and the cache keeps the newest conv_kernel. */
static void mamba_conv(Gen *g, const char *act) {
  const Config *m = g->m;
  const char *bias = m->conv_bias ? ", bias=conv1d_bias" : "";
  line(g, "conv_kernel", "weight conv1d : [intermediate_size, 1, conv_kernel]"
       "  # depthwise: groups=intermediate_size");
  if (m->conv_bias) line(g, "use_conv_bias", "weight conv1d_bias : [intermediate_size]");
  line(g, NULL, "xs = transpose(xs, [0, 2, 1])  # [batch, intermediate_size, seq]");
  if (m->phase == PH_DECODE) {
    line(g, "conv_kernel", "cache conv_state : [batch, intermediate_size, "
         "conv_kernel - 1]  # the last inputs: a constant size");
    line(g, NULL, "window = append(conv_state, xs, axis=2)  # [batch, "
         "intermediate_size, conv_kernel - 1 + seq], MambaCache's conv_kernel");
  }
  open_block(g, NULL, "fused conv");
  if (m->phase == PH_DECODE) {
    line(g, NULL, "xc = conv1d(window, conv1d, groups=intermediate_size%s)", bias);
  } else {
    line(g, NULL, "xc = conv1d(xs, conv1d, padding=conv_kernel - 1, "
         "groups=intermediate_size%s)  # [batch, intermediate_size, seq + "
         "conv_kernel - 1]", bias);
    line(g, NULL, "xc = slice(xc, axis=2, start=0, end=seq)  # causal: the first seq");
  }
  line(g, m->act_key, "xc = %s", act);
  close_block(g);
  line(g, NULL, "xc = transpose(xc, [0, 2, 1])  # [batch, seq, intermediate_size]");
}

/* Mamba's mixer (modeling_mamba.py's MambaMixer, R-FAM-201): in_proj to
 * the scan's input and its gate, the conv, x_proj to the step size's rank
 * and B and C, dt_proj, the selective scan (R-OP-008) gated by act(z),
 * out_proj and the residual.  In decode the scan's state is each layer's
 * cache, of a constant size (R-FAM-202). */
static void emit_mamba_mixer(Gen *g) {
  const Config *m = g->m;
  char act[64];
  snprintf(act, sizeof act, m->act, "xc");
  weight(g, "intermediate_size", "in_proj", "hidden_size", "2 * intermediate_size",
         -1, "the scan's input and its gate");
  if (m->mlp_bias) line(g, "use_bias", "weight in_proj_bias : [2 * intermediate_size]");
  line(g, NULL, "xz = matmul(h, in_proj)");
  if (m->mlp_bias) line(g, NULL, "xz = add(xz, in_proj_bias)");
  line(g, NULL, "xs, z = split(xz, 2, axis=-1)  # [batch, seq, intermediate_size] each");
  mamba_conv(g, act);
  weight(g, "time_step_rank", "x_proj", "intermediate_size",
         "time_step_rank + 2 * state_size", -1, "the step's rank, B and C");
  line(g, NULL, "p = matmul(xc, x_proj)");
  line(g, NULL, "ts, B, C = split(p, [time_step_rank, state_size, state_size], axis=-1)");
  weight(g, NULL, "dt_proj", "time_step_rank", "intermediate_size", -1, NULL);
  line(g, NULL, "weight dt_proj_bias : [intermediate_size]");
  line(g, NULL, "dt = matmul(ts, dt_proj)  # [batch, seq, intermediate_size]");
  line(g, "state_size", "weight A_log : [intermediate_size, state_size]");
  line(g, NULL, "weight D : [intermediate_size]  # the skip");
  bool decode = m->phase == PH_DECODE;
  if (decode)
    line(g, "state_size", "cache ssm_state : [batch, intermediate_size, "
         "state_size]  # the scan's state: a constant size, whatever the context");
  open_block(g, NULL, "fused scan");
  line(g, NULL, "A = neg(exp(A_log))");
  line(g, NULL, "dt = softplus(add(dt, dt_proj_bias))");
  line(g, NULL, "y = selective_scan(xc, dt, A, B, C, D%s)  # [batch, seq, "
       "intermediate_size]", decode ? ", ssm_state" : "");
  snprintf(act, sizeof act, m->act, "z");
  line(g, m->act_key, "zg = %s", act);
  line(g, NULL, "y = mul(y, zg)");
  close_block(g);
  weight(g, NULL, "out_proj", "intermediate_size", "hidden_size", -1, NULL);
  if (m->mlp_bias) line(g, "use_bias", "weight out_proj_bias : [hidden_size]");
  open_block(g, NULL, "fused out_proj");
  line(g, NULL, "o = matmul(y, out_proj)");
  if (m->mlp_bias) line(g, NULL, "o = add(o, out_proj_bias)");
  line(g, NULL, "x = add(x, o)");
  close_block(g);
}

/* One decoder (or encoder) layer. */
static void emit_layer(Gen *g, bool moe, bool sliding) {
  const Config *m = g->m;
  if (m->f & F_SSM) {
    norm(g, "h", "x", "norm", "hidden_size");
    emit_mamba_mixer(g);
    return;
  }
  if (m->f & (F_ENCODER | F_NO_PRENORM)) line(g, NULL, "h = x");
  else {
    norm(g, "h", "x", "input_layernorm", "hidden_size");
  }
  if (m->f & F_MLA) emit_mla(g);
  else emit_attention(g, sliding);
  attention_out(g);
  blank(g);
  emit_mlp_block(g, moe);
}

/* A layer, its body in a checkpoint block under -D recompute (R-HF-017). */
static void emit_layer_body(Gen *g, bool moe, bool sliding) {
  if (g->m->recompute) open_block(g, NULL, g->m->recompute);
  emit_layer(g, moe, sliding);
  if (g->m->recompute) close_block(g);
}

/* Whether decode's layers are two kinds that alternate (gemma2's sliding
 * and global layers), written as one repeat of the pair. */
static bool layers_alternate(const Config *m) {
  int64_t n = m->layers;
  bool alternate = m->phase == PH_DECODE && n >= 2 && n % 2 == 0 &&
                   layer_sliding(m, 0) != layer_sliding(m, 1);
  for (int64_t i = 2; alternate && i < n; i++)
    alternate = layer_sliding(m, i) == layer_sliding(m, i - 2) &&
                layer_moe(m, i) == layer_moe(m, i % 2);
  return alternate;
}

/* Where the run of layers identical to layer `start` ends: the same MLP
 * (dense or experts) and, in decode, the same attention (sliding or not). */
static int64_t run_end(const Config *m, int64_t start) {
  bool moe = layer_moe(m, start), s = m->phase == PH_DECODE && layer_sliding(m, start);
  int64_t end = start + 1;
  while (end < m->layers && layer_moe(m, end) == moe &&
         (m->phase == PH_DECODE ? layer_sliding(m, end) : false) == s &&
         layer_nope(m, end) == layer_nope(m, start))
    end++;
  return end;
}

/* Whether layers i and j are written alike: the same MLP, positions and,
 * in decode, attention. */
static bool same_layer(const Config *m, int64_t i, int64_t j) {
  return layer_moe(m, i) == layer_moe(m, j) && layer_nope(m, i) == layer_nope(m, j) &&
         (m->phase != PH_DECODE || layer_sliding(m, i) == layer_sliding(m, j));
}

/* The period of Llama 4's layers (R-FAM-204): the least p of 2 to 8
 * dividing the layers, in which the kinds repeat and are not all one
 * (NoPE every fourth layer, experts every interleave_moe_layer_step-th);
 * 0: none, and the runs are written one by one. */
static int64_t layer_period(const Config *m) {
  if (!(m->f & F_CHUNKED)) return 0;
  for (int64_t p = 2; p <= 8; p++) {
    if (m->layers % p != 0 || m->layers == p) continue;
    bool periodic = true, mixed = false;
    for (int64_t i = 0; periodic && i < m->layers; i++) {
      periodic = same_layer(m, i, i % p);
      mixed = mixed || !same_layer(m, i, 0);
    }
    if (periodic && mixed) return p;
  }
  return 0;
}

/* One repeat of a period of p layers, each run of alike layers in it a
 * repeat of its own. */
static void emit_period(Gen *g, int64_t p) {
  const Config *m = g->m;
  char head[64];
  snprintf(head, sizeof head, "repeat num_hidden_layers / %lld", (long long)p);
  open_block(g, "num_hidden_layers", head);
  for (int64_t i = 0, end; i < p; i = end) {
    for (end = i + 1; end < p && same_layer(m, end, i);) end++;
    line(g, NULL, "# layers %lld .. %lld of each %lld: %s, %s", (long long)i,
         (long long)end - 1, (long long)p, layer_nope(m, i) ? "NoPE, global" : "rotary",
         layer_moe(m, i) ? "experts" : "a dense MLP");
    snprintf(head, sizeof head, "repeat %lld", (long long)(end - i));
    open_block(g, NULL, head);
    g->layer = i;
    emit_layer_body(g, layer_moe(m, i), m->phase == PH_DECODE && layer_sliding(m, i));
    close_block(g);
  }
  close_block(g);
}

/* The bounds on the layers (R-HF-015): at most HF_MAX_LAYERS of them, in
 * at most HF_MAX_RUNS runs of identical layers (each run is one repeat of
 * a whole layer's text: a config whose mlp_only_layers or
 * decoder_sparse_step cut thousands of runs would write megabytes). */
static void check_layers(Cfg *c, const Config *m) {
  const char *key = spelled(c, "num_hidden_layers");
  if (m->layers > HF_MAX_LAYERS) {
    cfg_fail(c, key, "'%s' %lld is more layers than rooflint imports (%d at most)",
             key, (long long)m->layers, HF_MAX_LAYERS);
    return;
  }
  if (layers_alternate(m) || layer_period(m)) return;
  int64_t runs = 0;
  for (int64_t i = 0; i < m->layers && runs <= HF_MAX_RUNS; i = run_end(m, i)) runs++;
  if (runs > HF_MAX_RUNS)
    cfg_fail(c, spelled(c, "mlp_only_layers") ? "mlp_only_layers" : key,
             "the %lld layers are more than %d runs of identical layers (from "
             "decoder_sparse_step, mlp_only_layers, first_k_dense_replace or "
             "sliding windows); rooflint writes at most %d repeats",
             (long long)m->layers, HF_MAX_RUNS, HF_MAX_RUNS);
}

/* The layers as repeats (R-HF-007): one per run of identical layers, or,
 * when two kinds alternate (gemma2's sliding and global layers), one
 * repeat of a pair. */
static void emit_layers(Gen *g) {
  const Config *m = g->m;
  int64_t n = m->layers, period = layer_period(m);
  if (period) {
    emit_period(g, period);
    return;
  }
  if (layers_alternate(m)) {
    open_block(g, "num_hidden_layers", "repeat num_hidden_layers / 2");
    for (int i = 0; i < 2; i++) {
      bool s = layer_sliding(m, i);
      line(g, NULL, "# %s attention", s ? "sliding-window" : "global");
      open_block(g, NULL, "repeat 1");
      g->layer = i;
      emit_layer_body(g, layer_moe(m, i), s);
      close_block(g);
    }
    close_block(g);
    return;
  }
  int64_t start = 0;
  while (start < n) {
    int64_t end = run_end(m, start);
    bool moe = layer_moe(m, start), s = m->phase == PH_DECODE && layer_sliding(m, start);
    if (start == 0 && end == n) {
      open_block(g, "num_hidden_layers", "repeat num_hidden_layers");
    } else if (start == 0 && end == m->first_dense && !moe) {
      line(g, "first_k_dense_replace", "# layers 0 .. %lld: a dense MLP",
           (long long)end - 1);
      open_block(g, "first_k_dense_replace", "repeat first_k_dense_replace");
    } else if (start == m->first_dense && end == n && start > 0) {
      line(g, NULL, "# layers %lld .. %lld: experts", (long long)start,
           (long long)n - 1);
      open_block(g, "first_k_dense_replace",
                 "repeat num_hidden_layers - first_k_dense_replace");
    } else {
      line(g, NULL, "# layers %lld .. %lld", (long long)start, (long long)end - 1);
      char head[64];
      snprintf(head, sizeof head, "repeat %lld", (long long)(end - start));
      open_block(g, NULL, head);
    }
    g->layer = start;
    emit_layer_body(g, moe, s);
    close_block(g);
    start = end;
  }
}

/* Token (and position, type) embeddings into x. */
static void emit_embeddings(Gen *g) {
  const Config *m = g->m;
  line(g, NULL, "input ids : int32[batch, seq]");
  if (tp(m) > 1)
    line(g, "vocab_size", "weight embed_tokens : [cdiv(vocab_size, tensor), "
         "hidden_size] shard=tensor  # a vocabulary slice per GPU");
  else
    line(g, "vocab_size", "weight embed_tokens : [vocab_size, hidden_size]");
  line(g, NULL, "x = embedding(ids, embed_tokens)  # [batch, seq, hidden_size]");
  tp_allreduce(g, "x");
  if (m->f & F_EMBED_NORM) norm(g, "x", "x", "word_embeddings_layernorm", "hidden_size");
  if (m->f & F_EMBED_SCALE)
    line(g, NULL, "x = mul(x, %.6g)  # times sqrt(hidden_size)",
         sqrt((double)m->hidden));
  if (m->f & F_LEARNED_POS) {
    line(g, NULL, "input positions : int32[seq]");
    line(g, "max_position_embeddings",
         "weight embed_positions : [max_position_embeddings, hidden_size]");
    if (m->f & F_ENCODER) {
      line(g, NULL, "input token_type_ids : int32[batch, seq]");
      line(g, "type_vocab_size",
           "weight token_type_embeddings : [type_vocab_size, hidden_size]");
      open_block(g, NULL, "fused embed_sum");
      line(g, NULL, "x = add(x, embedding(positions, embed_positions))");
      line(g, NULL, "x = add(x, embedding(token_type_ids, token_type_embeddings))");
      close_block(g);
      norm(g, "x", "x", "embed_layernorm", "hidden_size");
    } else {
      line(g, NULL, "x = add(x, embedding(positions, embed_positions))");
    }
  }
  if (m->f & F_ROPE) {
    const char *d = m->f & F_MLA ? "qk_rope_head_dim"
                    : m->rotary_dim != m->head_dim ? "rotary_dim" : "head_dim";
    line(g, NULL, "input cos, sin : [seq, %s]  # rotary tables of this step's positions", d);
  }
  if (m->attn_temp)
    line(g, "attn_temperature_tuning", "input attn_scales : [seq, 1]  # the NoPE "
         "layers' temperature, log1p(floor((pos + 1) / floor_scale)) * attn_scale + 1");
}

/* The final norm, the head, soft-capping, the loss or the logits. */
static void emit_head(Gen *g) {
  const Config *m = g->m;
  blank(g);
  if (m->f & F_ENCODER) {
    weight(g, NULL, "pooler", "hidden_size", "hidden_size", -1, "tanh of the first token's dense");
    line(g, NULL, "weight pooler_bias : [hidden_size]");
    line(g, NULL, "cls = select(x, axis=1, index=0)  # [batch, hidden_size]");
    open_block(g, NULL, "fused pool");
    line(g, NULL, "pooled = matmul(cls, pooler)");
    line(g, NULL, "pooled = add(pooled, pooler_bias)");
    line(g, NULL, "pooled = tanh(pooled)");
    close_block(g);
    line(g, NULL, "output x, pooled");
    return;
  }
  norm(g, "x", "x", m->f & F_SSM ? "norm_f" : "norm", "hidden_size");
  if (m->phase == PH_PREFILL)
    line(g, NULL, "x = slice(x, axis=1, start=seq - 1, end=seq)  # logits of the last position only");
  if (m->tied && (m->f & F_HEAD_SCALE))
    line(g, "tie_word_embeddings", "x = mul(x, %.6g)  # tied: times d_model^-0.5, "
         "as T5 rescales before the shared head", 1 / sqrt((double)m->hidden));
  if (m->tied) {
    line(g, "tie_word_embeddings",
         "logits = matmul(x, transpose(embed_tokens, [1, 0]))  # tied: the embedding, no new weight");
  } else {
    if (tp(m) > 1)
      line(g, "tie_word_embeddings",
           "weight lm_head : [hidden_size, cdiv(vocab_size, tensor)] shard=tensor");
    else
      line(g, "tie_word_embeddings", "weight lm_head : [hidden_size, vocab_size]");
    line(g, NULL, "logits = matmul(x, lm_head)");
    if (m->head_bias) {
      const char *key = spelled(g->cfg, "lm_head_bias");
      if (tp(m) > 1)
        line(g, key, "weight lm_head_bias : [cdiv(vocab_size, tensor)] shard=tensor");
      else
        line(g, key, "weight lm_head_bias : [vocab_size]");
      line(g, NULL, "logits = add(logits, lm_head_bias)");
    }
  }
  /* training ends as Megatron-LM does, in a vocab-parallel cross-entropy
   * of each rank's slice (R-HF-011); serving gathers the slices */
  if (tp(m) > 1 && m->phase != PH_TRAIN)
    line(g, "tensor", "logits = allgather(logits, axis=-1, group=tensor)  # the vocabulary slices");
  if (m->final_cap > 0) {
    open_block(g, "final_logit_softcapping", "fused softcap");
    line(g, NULL, "logits = div(logits, %g)", m->final_cap);
    line(g, NULL, "logits = tanh(logits)");
    line(g, NULL, "logits = mul(logits, %g)", m->final_cap);
    close_block(g);
  }
  if (m->phase == PH_TRAIN) {
    line(g, NULL, "input labels : int32[batch, seq]");
    if (tp(m) > 1)
      line(g, "tensor", "loss = cross_entropy(logits, labels)  # vocab-parallel: each GPU's slice");
    else
      line(g, NULL, "loss = cross_entropy(logits, labels)");
    line(g, NULL, "output loss");
  } else {
    line(g, NULL, "output logits");
  }
}

static void let(Gen *g, const char *key, const char *name, const char *value,
                const char *comment) {
  const char *k = key ? spelled(g->cfg, key) : NULL;
  char lhs[160];
  snprintf(lhs, sizeof lhs, "let %s = %s", name, value);
  if (comment)
    line(g, k, "%-40s # %s", lhs, comment);
  else if (k && strcmp(k, name) != 0)
    line(g, k, "%-40s # %s", lhs, k);
  else
    line(g, k, "%s", lhs);
}

static void leti(Gen *g, const char *key, const char *name, int64_t v,
                 const char *comment) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  let(g, key, name, buf, comment);
}

/* The run's lets: batch, sequence, context and the parallel degrees. */
static void emit_run_lets(Gen *g) {
  const Config *m = g->m;
  static const char *const phase_doc[] = {
      "prompts in the batch (-D batch=N)", "sequences decoding (-D batch=N)",
      "sequences per step (-D batch=N)"};
  static const char *const seq_doc[] = {
      "prompt tokens (-D seq=N)", "new tokens this step (-D seq=N)",
      "tokens per sequence (-D seq=N)"};
  static const char *const encdec_seq_doc[] = {
      "decoder tokens (-D seq=N)", "new decoder tokens this step (-D seq=N)",
      "decoder tokens per sequence (-D seq=N)"};
  bool encdec = m->f & F_ENCDEC;
  leti(g, NULL, "batch", m->batch, phase_doc[m->phase]);
  if (encdec)
    leti(g, NULL, "src_seq", m->src_seq, m->f & F_AUDIO_CONV
         ? "encoder positions, of 2 x as many mel frames (-D src_seq=N)"
         : "encoder tokens (-D src_seq=N)");
  leti(g, NULL, "seq", m->seq, (encdec ? encdec_seq_doc : seq_doc)[m->phase]);
  if (m->phase == PH_DECODE && !(m->f & F_SSM))
    leti(g, NULL, "ctx", m->ctx, encdec ? "decoder tokens already in the self-attention "
         "cache (-D ctx=N)" : "tokens already in the KV cache (-D ctx=N)");
  for (int i = 0; i < NPAR; i++)
    if (m->par[i]) {
      char c[64];
      snprintf(c, sizeof c, "-D %s=N", par_keys[i]);
      leti(g, NULL, par_keys[i], m->par[i], c);
    }
}

/* The attention's sizes, each at the key it comes from. */
static void emit_attention_lets(Gen *g) {
  const Config *m = g->m;
  leti(g, "hidden_size", "hidden_size", m->hidden, NULL);
  leti(g, "num_hidden_layers", "num_hidden_layers", m->layers, NULL);
  leti(g, "num_attention_heads", "num_attention_heads", m->heads, NULL);
  if (!(m->f & F_MLA)) {
    if (m->kv_heads == 1 && spelled(g->cfg, "multi_query") &&
        !spelled(g->cfg, "num_key_value_heads"))
      leti(g, "multi_query", "num_key_value_heads", 1, "multi_query: one KV head");
    else
      leti(g, "num_key_value_heads", "num_key_value_heads", m->kv_heads,
           spelled(g->cfg, "num_key_value_heads") ? NULL
           : family_default(g->cfg, "num_key_value_heads", NULL)
               ? "absent: the family's default"
               : "absent: num_attention_heads");
    if (spelled(g->cfg, "head_dim"))
      leti(g, "head_dim", "head_dim", m->head_dim, NULL);
    else if (family_default(g->cfg, "head_dim", NULL))
      leti(g, NULL, "head_dim", m->head_dim, "absent: the family's default");
    else
      let(g, NULL, "head_dim", "hidden_size / num_attention_heads", NULL);
    if (m->rotary_dim != m->head_dim && spelled(g->cfg, "rotary_dim"))
      leti(g, "rotary_dim", "rotary_dim", m->rotary_dim, NULL);
    else if (m->rotary_dim != m->head_dim)
      leti(g, spelled(g->cfg, "rotary_pct") ? "rotary_pct" : "partial_rotary_factor",
           "rotary_dim", m->rotary_dim, "head_dim times rotary_pct");
  }
}

/* The MLP's width, the vocabulary, positions and the sliding window. */
static void emit_width_lets(Gen *g) {
  const Config *m = g->m;
  bool dense = false;
  for (int64_t i = 0; i < m->layers; i++) dense = dense || !layer_moe(m, i);
  if (dense && (m->f & F_CHUNKED)) {
    leti(g, "intermediate_size_mlp", "intermediate_size", m->inter,
         "intermediate_size_mlp: the dense layers' width");
  } else if (dense) {
    if (spelled(g->cfg, "intermediate_size"))
      leti(g, "intermediate_size", "intermediate_size", m->inter, NULL);
    else
      let(g, NULL, "intermediate_size", "4 * hidden_size", "absent: 4 * hidden_size");
  }
  leti(g, "vocab_size", "vocab_size", m->vocab, NULL);
  if (m->f & F_LEARNED_POS)
    leti(g, "max_position_embeddings", "max_position_embeddings", m->max_pos, NULL);
  if (m->f & F_ENCODER) leti(g, "type_vocab_size", "type_vocab_size", m->type_vocab, NULL);
  if (m->phase == PH_DECODE && m->window && (m->f & F_CHUNKED)) {
    leti(g, "attention_chunk_size", "sliding_window", m->window,
         "attention_chunk_size: a chunk, priced as a window of its size");
    let(g, "attention_chunk_size", "window_ctx", "min(ctx, sliding_window)",
        "a chunked layer caches at most a chunk");
  } else if (m->phase == PH_DECODE && m->window) {
    leti(g, "sliding_window", "sliding_window", m->window, NULL);
    let(g, "sliding_window", "window_ctx", "min(ctx, sliding_window)",
        "a sliding-window layer caches at most sliding_window tokens");
  }
  if (m->f & F_MLA) {
    if (m->q_lora) leti(g, "q_lora_rank", "q_lora_rank", m->q_lora, NULL);
    leti(g, "kv_lora_rank", "kv_lora_rank", m->kv_lora, NULL);
    leti(g, "qk_nope_head_dim", "qk_nope_head_dim", m->nope, NULL);
    leti(g, "qk_rope_head_dim", "qk_rope_head_dim", m->rope_dim, NULL);
    leti(g, "v_head_dim", "v_head_dim", m->v_dim, NULL);
  }
}

/* The experts' counts and widths. */
static void emit_moe_lets(Gen *g) {
  const Config *m = g->m;
  if ((m->f & F_MOE) && m->experts) {
    leti(g, "num_experts", "num_experts", m->experts, NULL);
    leti(g, "num_experts_per_tok", "num_experts_per_tok", m->top_k, NULL);
    if (m->n_group) {
      leti(g, "n_group", "n_group", m->n_group, NULL);
      leti(g, "topk_group", "topk_group", m->topk_group, NULL);
    }
    if (spelled(g->cfg, "moe_intermediate_size"))
      leti(g, "moe_intermediate_size", "moe_intermediate_size", m->moe_inter, NULL);
    else
      leti(g, "intermediate_size", "moe_intermediate_size", m->moe_inter,
           "intermediate_size: one expert's width");
    if ((m->f & F_SHARED_EXPERT) && (m->f & F_TOPK_SIGMOID)) {
      let(g, "intermediate_size", "shared_intermediate_size", "moe_intermediate_size",
          "one shared expert of the experts' width");
    } else if (m->f & F_SHARED_EXPERT) {
      if (spelled(g->cfg, "n_shared_experts")) {
        int64_t n = m->shared_inter / m->moe_inter;
        if (n > 1) leti(g, "n_shared_experts", "n_shared_experts", n, NULL);
        let(g, "n_shared_experts", "shared_intermediate_size",
            n == 1 ? "moe_intermediate_size"
                   : "n_shared_experts * moe_intermediate_size",
            "n_shared_experts of moe_intermediate_size, as one MLP");
      } else
        leti(g, "shared_expert_intermediate_size", "shared_intermediate_size",
             m->shared_inter, "shared_expert_intermediate_size");
    }
    if (m->first_dense)
      leti(g, "first_k_dense_replace", "first_k_dense_replace", m->first_dense, NULL);
  }
}

/* ------------------------------------------------- encoder-decoders */

/* How an encoder-decoder's config spells its sizes (R-FAM-101): T5Config's
 * and WhisperConfig's fields.  The lets are named as the other families
 * name them (hidden_size, num_attention_heads, ...), the config's spelling
 * in the comment; the two stacks' heads and widths are one let each, as
 * every published checkpoint has them equal. */
static const struct EncDecFields {
  const char *model_type;
  const char *enc_layers, *dec_layers, *enc_heads, *dec_heads, *head_dim,
      *enc_ffn, *dec_ffn, *src_positions, *tgt_positions;
  const char *modules[2]; /* the header's lines: the checkpoint's names */
} encdec_fields[] = {
    {"t5", "num_layers", "num_decoder_layers", "num_heads", "num_heads", "d_kv",
     "d_ff", "d_ff", NULL, "n_positions",
     {"# Weights: SelfAttention's q, k, v, o are q_proj .. o_proj, "
      "EncDecAttention's cross_q_proj .. cross_o_proj;",
      "#   wi, wo (wi_0, wi_1, wo) are up_proj, down_proj (gate_proj, up_proj, "
      "down_proj); shared is embed_tokens."}},
    {"whisper", "encoder_layers", "decoder_layers", "encoder_attention_heads",
     "decoder_attention_heads", NULL, "encoder_ffn_dim", "decoder_ffn_dim",
     "max_source_positions", "max_target_positions",
     {"# Weights: out_proj is o_proj, encoder_attn's are cross_q_proj .. "
      "cross_o_proj (its norm cross_attn_layer_norm);",
      "#   fc1, fc2 are up_proj, down_proj; the decoder's embed_positions is "
      "embed_positions_dec."}},
};

static const struct EncDecFields *encdec_of(const Family *fam) {
  for (size_t i = 0; i < sizeof encdec_fields / sizeof *encdec_fields; i++)
    if (strcmp(encdec_fields[i].model_type, fam->model_type) == 0)
      return &encdec_fields[i];
  return &encdec_fields[0];
}

/* One attention sublayer of an encoder-decoder.  The values it binds are
 * named with `p` (the encoder's "enc_": a name bound in one stack's repeat
 * and bound again, at another length, in the other's would be
 * loop-carried), its weights with `w` (the cross-attention's "cross_"). */
typedef struct Sublayer {
  const char *p, *w, *region; /* value, weight and fused-region prefixes */
  const char *norm;           /* the norm's weight */
  const char *x, *h, *len;    /* the residual stream, its norm, its length */
  const char *kv, *kv_len;    /* what k and v are projected from */
  const char *bias;           /* T5's position bias, or NULL */
  bool causal, run;           /* run false: the weights only (decode's encoder) */
  bool cache, cross_cache;    /* decode: the self-attention's, the cross one's */
} Sublayer;

/* The norm of `x` into `y`, or with run false its weight alone. */
static void encdec_norm(Gen *g, const char *y, const char *x, const char *w,
                        bool run) {
  if (run) norm(g, y, x, w, "hidden_size");
  else if (g->m->f & F_RMSNORM) line(g, NULL, "weight %s : [hidden_size]", w);
  else line(g, NULL, "weight %s, %s_bias : [hidden_size]", w, w);
}

/* The four projections' weights and biases (Whisper's k_proj has none). */
static void sublayer_weights(Gen *g, const Sublayer *s) {
  const Config *m = g->m;
  char n[64], sh[128];
  static const char *const qkv[] = {"q", "k", "v"};
  for (int i = 0; i < 3; i++) {
    snprintf(n, sizeof n, "%s%s_proj", s->w, qkv[i]);
    proj(g, NULL, n, "hidden_size", "num_attention_heads * head_dim", 1, NULL);
  }
  if (m->qkv_bias)
    line(g, NULL, "weight %sq_proj_bias, %sv_proj_bias : %s%s", s->w, s->w,
         sharded(g, sh, sizeof sh, "num_attention_heads * head_dim", NULL, 0),
         m->f & F_NO_K_BIAS ? "  # k_proj has no bias" : "");
  snprintf(n, sizeof n, "%so_proj", s->w);
  proj(g, NULL, n, "num_attention_heads * head_dim", "hidden_size", 0, NULL);
  if (m->o_bias) line(g, NULL, "weight %s_bias : [hidden_size]", n);
}

/* `v = matmul(from, W)` with its bias. */
static void sublayer_proj(Gen *g, const Sublayer *s, const char *v,
                          const char *from) {
  const Config *m = g->m;
  line(g, NULL, "%s%s = matmul(%s, %s%s_proj%s)", s->p, v, from, s->w, v, qp(g));
  if (m->qkv_bias && !(strcmp(v, "k") == 0 && (m->f & F_NO_K_BIAS)))
    line(g, NULL, "%s%s = add(%s%s, %s%s_proj_bias)", s->p, v, s->p, v, s->w, v);
}

/* [batch, LEN, heads * head_dim] -> [batch, heads, LEN, head_dim]. */
static void sublayer_heads(Gen *g, const Sublayer *s, const char *v,
                           const char *len) {
  char h[64];
  per_gpu(g, h, sizeof h, "num_attention_heads");
  line(g, NULL, "%s%s = transpose(reshape(%s%s, [batch, %s, %s, head_dim]), [0, 2, 1, 3])",
       s->p, v, s->p, v, len, h);
}

/* q, k and v: one region when they read the same norm, else q's and the
 * encoder's k and v's (none in decode: the cross cache holds them). */
static void sublayer_project(Gen *g, const Sublayer *s) {
  bool self = strcmp(s->kv, s->h) == 0;
  char region[64];
  snprintf(region, sizeof region, "fused %s%s", s->region, self ? "qkv" : "q");
  open_block(g, NULL, region);
  sublayer_proj(g, s, "q", s->h);
  if (self) {
    sublayer_proj(g, s, "k", s->h);
    sublayer_proj(g, s, "v", s->h);
  }
  close_block(g);
  if (!self && !s->cross_cache) {
    snprintf(region, sizeof region, "fused %skv", s->region);
    open_block(g, NULL, region);
    sublayer_proj(g, s, "k", s->kv);
    sublayer_proj(g, s, "v", s->kv);
    close_block(g);
  }
  sublayer_heads(g, s, "q", s->len);
  if (!s->cross_cache) {
    sublayer_heads(g, s, "k", s->kv_len);
    sublayer_heads(g, s, "v", s->kv_len);
  }
}

/* The attention kernel into `a`, over this step's keys, the self-attention
 * cache with them appended, or the cross-attention cache (R-FAM-105). */
static void sublayer_attend(Gen *g, const Sublayer *s) {
  char h[64], k[64], v[64];
  per_gpu(g, h, sizeof h, "num_attention_heads");
  snprintf(k, sizeof k, "%sk", s->p);
  snprintf(v, sizeof v, "%sv", s->p);
  if (s->cache) {
    line(g, NULL, "cache k_cache, v_cache : [batch, %s, ctx, head_dim]  # the self-attention's", h);
    line(g, NULL, "k_all = append(k_cache, %s, axis=2)  # [batch, %s, ctx + seq, head_dim]", k, h);
    line(g, NULL, "v_all = append(v_cache, %s, axis=2)", v);
    snprintf(k, sizeof k, "k_all");
    snprintf(v, sizeof v, "v_all");
  }
  if (s->cross_cache) {
    line(g, NULL, "cache cross_k_cache, cross_v_cache : [batch, %s, src_seq, head_dim]"
         "  # the encoder's keys and values, projected once at prefill", h);
    snprintf(k, sizeof k, "cross_k_cache");
    snprintf(v, sizeof v, "cross_v_cache");
  }
  line(g, NULL, "%sa = attention(%sq, %s, %s%s%s%s)", s->p, s->p, k, v,
       s->bias ? ", " : "", s->bias ? s->bias : "", s->causal ? ", causal=true" : "");
  line(g, NULL, "%sa = reshape(transpose(%sa, [0, 2, 1, 3]), [batch, %s, %s * head_dim])",
       s->p, s->p, s->len, h);
}

/* The output projection, its bias and the residual. */
static void sublayer_out(Gen *g, const Sublayer *s) {
  const Config *m = g->m;
  char region[64], o[32];
  snprintf(o, sizeof o, "%so", s->p);
  bool tail = tp(m) == 1;
  snprintf(region, sizeof region, "fused %s%s", s->region, tail ? "attn_out" : "o_proj");
  open_block(g, NULL, region);
  line(g, NULL, "%s = matmul(%sa, %so_proj%s)", o, s->p, s->w, qp(g));
  if (m->o_bias && tail) line(g, NULL, "%s = add(%s, %so_proj_bias)", o, o, s->w);
  if (tail) line(g, NULL, "%s = add(%s, %s)", s->x, s->x, o);
  close_block(g);
  if (tail) return;
  tp_allreduce(g, o);
  if (m->o_bias) line(g, NULL, "%s = add(%s, %so_proj_bias)", o, o, s->w);
  line(g, NULL, "%s = add(%s, %s)", s->x, s->x, o);
}

/* An attention sublayer (R-FAM-101): pre-norm, attention, residual. */
static void emit_sublayer(Gen *g, const Sublayer *s) {
  encdec_norm(g, s->h, s->x, s->norm, s->run);
  sublayer_weights(g, s);
  if (!s->run) return;
  sublayer_project(g, s);
  sublayer_attend(g, s);
  sublayer_out(g, s);
}

/* The feed-forward sublayer: pre-norm, T5's DenseReluDense (wi, wo) or
 * DenseGatedActDense (wi_0, wi_1, wo), Whisper's fc1 and fc2 with biases;
 * the values named with `p`, the stream `x`. */
static void emit_ffn(Gen *g, const char *p, const char *x, bool run) {
  const Config *m = g->m;
  char h[32], gv[32], act[96];
  snprintf(h, sizeof h, "%sh", p);
  snprintf(gv, sizeof gv, "%sg", p);
  snprintf(act, sizeof act, m->act, gv);
  encdec_norm(g, h, x, "final_layer_norm", run);
  bool gated = m->f & F_GATED;
  if (gated) proj(g, NULL, "gate_proj", "hidden_size", "intermediate_size", 1, "wi_0");
  proj(g, NULL, "up_proj", "hidden_size", "intermediate_size", 1, gated ? "wi_1" : NULL);
  proj(g, NULL, "down_proj", "intermediate_size", "hidden_size", 0, NULL);
  char sh[128];
  if (m->mlp_bias) {
    line(g, NULL, "weight up_proj_bias : %s",
         sharded(g, sh, sizeof sh, "intermediate_size", NULL, 0));
    line(g, NULL, "weight down_proj_bias : [hidden_size]");
  }
  if (!run) return;
  char region[64];
  snprintf(region, sizeof region, "fused %s%s", p, gated ? "gate_up" : "up");
  open_block(g, NULL, region);
  if (gated) line(g, NULL, "%sg = matmul(%s, gate_proj%s)", p, h, qp(g));
  line(g, NULL, "%s%s = matmul(%s, up_proj%s)", p, gated ? "u" : "g", h, qp(g));
  if (m->mlp_bias) line(g, NULL, "%sg = add(%sg, up_proj_bias)", p, p);
  if (!gated) line(g, m->act_key, "%s = %s", gv, act);
  close_block(g);
  if (gated) {
    snprintf(region, sizeof region, "fused %sact_mul", p);
    open_block(g, NULL, region);
    line(g, m->act_key, "%s = %s", gv, act);
    line(g, NULL, "%sg = mul(%sg, %su)", p, p, p);
    close_block(g);
  }
  bool tail = tp(m) == 1;
  snprintf(region, sizeof region, "fused %sdown", p);
  open_block(g, NULL, region);
  line(g, NULL, "%se = matmul(%sg, down_proj%s)", p, p, qp(g));
  if (m->mlp_bias && tail) line(g, NULL, "%se = add(%se, down_proj_bias)", p, p);
  if (tail) line(g, NULL, "%s = add(%s, %se)", x, x, p);
  close_block(g);
  if (tail) return;
  char e[32];
  snprintf(e, sizeof e, "%se", p);
  tp_allreduce(g, e);
  if (m->mlp_bias) line(g, NULL, "%s = add(%s, down_proj_bias)", e, e);
  line(g, NULL, "%s = add(%s, %s)", x, x, e);
}

/* T5's relative position bias (R-FAM-103): the bucket of each query and
 * key position (T5Attention._relative_position_bucket, from the positions
 * alone) looks up a learned [buckets, heads] table, the first layer's of
 * the stack, and the [heads, Sq, Skv] result is added to every layer's
 * scores.  `run` false: the table alone. */
static void emit_rel_bias(Gen *g, const char *p, const char *sq,
                          const char *skv, bool run) {
  line(g, "relative_attention_num_buckets",
       "weight %srelative_attention_bias : [relative_attention_num_buckets, "
       "num_attention_heads]  # layer 0's, read by every layer", p);
  if (!run) return;
  line(g, NULL, "input %sbuckets : int32[%s, %s]  # the relative position bucket "
       "of each query and key", p, sq, skv);
  line(g, NULL, "%sbias = transpose(embedding(%sbuckets, %srelative_attention_bias), "
       "[2, 0, 1])  # [num_attention_heads, %s, %s]", p, p, p, sq, skv);
  /* under -D tensor the table is whole on every GPU (a sliced table's
   * lookup would read as a vocabulary-parallel partial sum), each GPU
   * taking its heads' rows */
  if (tp(g->m) > 1)
    line(g, "tensor", "%sbias = slice(%sbias, axis=0, start=0, end=num_attention_heads "
         "/ tensor)  # this GPU's heads", p, p);
}

/* Whisper's front (R-FAM-104): conv1 (kernel 3, padding 1) and conv2
 * (kernel 3, stride 2, padding 1) over the log-mel frames, each with GELU,
 * halving 2 x src_seq frames to src_seq positions; plus the sinusoidal
 * positions, a frozen table (a buffer).  `run` false: the weights only. */
static void emit_audio_front(Gen *g, bool run) {
  line(g, "num_mel_bins", "weight conv1 : [hidden_size, num_mel_bins, 3]");
  line(g, NULL, "weight conv1_bias, conv2_bias : [hidden_size]");
  line(g, NULL, "weight conv2 : [hidden_size, hidden_size, 3]");
  line(g, "max_source_positions", "buffer embed_positions : [max_source_positions, "
       "hidden_size]  # sinusoidal, frozen: no parameter");
  if (!run) return;
  line(g, NULL, "input input_features : [batch, num_mel_bins, 2 * src_seq]  # log-mel frames");
  open_block(g, NULL, "fused conv1");
  line(g, NULL, "enc = conv1d(input_features, conv1, bias=conv1_bias, padding=1)");
  line(g, NULL, "enc = gelu(enc)");
  close_block(g);
  open_block(g, NULL, "fused conv2");
  line(g, NULL, "enc = conv1d(enc, conv2, bias=conv2_bias, stride=2, padding=1)  "
       "# [batch, hidden_size, src_seq]");
  line(g, NULL, "enc = gelu(enc)");
  close_block(g);
  line(g, NULL, "enc = transpose(enc, [0, 2, 1])");
  line(g, NULL, "enc = add(enc, slice(embed_positions, axis=0, start=0, end=src_seq))");
}

/* The encoder's stack into `enc`; in decode its weights only, resident
 * beside the decoder's (it ran once, at prefill). */
static void emit_encoder(Gen *g) {
  const Config *m = g->m;
  bool run = m->phase != PH_DECODE;
  line(g, NULL, run ? "# the encoder over src_seq positions"
                    : "# the encoder's weights: it ran once, at prefill, and "
                      "the cross-attention caches hold what the decoder reads of it");
  if (m->f & F_AUDIO_CONV) emit_audio_front(g, run);
  else if (run) {
    line(g, NULL, "input input_ids : int32[batch, src_seq]");
    line(g, NULL, "enc = embedding(input_ids, embed_tokens)  # [batch, src_seq, hidden_size]");
    tp_allreduce(g, "enc");
  }
  if (m->f & F_REL_BIAS) emit_rel_bias(g, "enc_", "src_seq", "src_seq", run);
  open_block(g, spelled(g->cfg, encdec_of(m->fam)->enc_layers), "repeat encoder_layers");
  if (m->recompute && run) open_block(g, NULL, m->recompute);
  Sublayer s = {.p = "enc_", .w = "", .region = "enc_", .norm = "self_attn_layer_norm",
                .x = "enc", .h = "enc_h", .len = "src_seq", .kv = "enc_h",
                .kv_len = "src_seq", .bias = m->f & F_REL_BIAS ? "enc_bias" : NULL,
                .run = run};
  emit_sublayer(g, &s);
  emit_ffn(g, "enc_", "enc", run);
  if (m->recompute && run) close_block(g);
  close_block(g);
  encdec_norm(g, "enc", "enc", "encoder_norm", run);
}

/* The decoder's input: its token embedding (and Whisper's learned
 * positions), T5's causal position bias. */
static void emit_decoder_input(Gen *g) {
  const Config *m = g->m;
  line(g, NULL, "# the decoder over seq tokens: self-attention, then cross-attention "
       "on the encoder's output");
  line(g, NULL, "input decoder_input_ids : int32[batch, seq]");
  line(g, NULL, "x = embedding(decoder_input_ids, embed_tokens)  # [batch, seq, hidden_size]");
  tp_allreduce(g, "x");
  if (m->f & F_EMBED_SCALE)
    line(g, "scale_embedding", "x = mul(x, %.6g)  # times sqrt(d_model)", sqrt((double)m->hidden));
  if (m->f & F_LEARNED_POS) {
    line(g, NULL, "input positions : int32[seq]");
    line(g, "max_target_positions",
         "weight embed_positions_dec : [max_target_positions, hidden_size]  # learned");
    line(g, NULL, "x = add(x, embedding(positions, embed_positions_dec))");
  }
  if (m->f & F_REL_BIAS)
    emit_rel_bias(g, "dec_", "seq", m->phase == PH_DECODE ? "ctx + seq" : "seq", true);
}

/* The decoder's stack: causal self-attention (over the cache in decode),
 * cross-attention on the encoder's output (its cache in decode), FFN. */
static void emit_decoder(Gen *g) {
  const Config *m = g->m;
  bool decode = m->phase == PH_DECODE;
  emit_decoder_input(g);
  open_block(g, spelled(g->cfg, encdec_of(m->fam)->dec_layers), "repeat decoder_layers");
  if (m->recompute) open_block(g, NULL, m->recompute);
  Sublayer self = {.p = "", .w = "", .region = "", .norm = "self_attn_layer_norm",
                   .x = "x", .h = "h", .len = "seq", .kv = "h", .kv_len = "seq",
                   .bias = m->f & F_REL_BIAS ? "dec_bias" : NULL,
                   .causal = !decode, .run = true, .cache = decode};
  emit_sublayer(g, &self);
  blank(g);
  Sublayer cross = {.p = "x", .w = "cross_", .region = "cross_",
                    .norm = "cross_attn_layer_norm", .x = "x", .h = "h", .len = "seq",
                    .kv = "enc", .kv_len = "src_seq", .run = true, .cross_cache = decode};
  emit_sublayer(g, &cross);
  blank(g);
  emit_ffn(g, "", "x", true);
  if (m->recompute) close_block(g);
  close_block(g);
}

/* An encoder-decoder's body (R-FAM-101): the shared token embedding, the
 * encoder, the decoder, the head (emit_head: the final norm, the tied or
 * untied projection, the logits or the loss). */
static void emit_encdec_body(Gen *g) {
  const Config *m = g->m;
  if (tp(m) > 1)
    line(g, "vocab_size", "weight embed_tokens : [cdiv(vocab_size, tensor), "
         "hidden_size] shard=tensor  # a vocabulary slice per GPU");
  else
    line(g, "vocab_size", "weight embed_tokens : [vocab_size, hidden_size]%s",
         m->f & F_REL_BIAS ? "  # shared: the encoder's and the decoder's" : "");
  blank(g);
  emit_encoder(g);
  blank(g);
  emit_decoder(g);
  emit_head(g);
}

/* The sizes' lets, each at its key (R-HF-007). */
static void emit_encdec_lets(Gen *g) {
  const Config *m = g->m;
  const struct EncDecFields *fd = encdec_of(m->fam);
  leti(g, "hidden_size", "hidden_size", m->hidden, NULL);
  leti(g, fd->enc_layers, "encoder_layers", m->enc_layers, NULL);
  if (spelled(g->cfg, fd->dec_layers))
    leti(g, fd->dec_layers, "decoder_layers", m->layers, NULL);
  else {
    char c[64];
    snprintf(c, sizeof c, "absent: %s", fd->enc_layers);
    let(g, NULL, "decoder_layers", "encoder_layers", c);
  }
  leti(g, fd->dec_heads, "num_attention_heads", m->heads, NULL);
  if (fd->head_dim) leti(g, fd->head_dim, "head_dim", m->head_dim, NULL);
  else let(g, NULL, "head_dim", "hidden_size / num_attention_heads", NULL);
  leti(g, fd->dec_ffn, "intermediate_size", m->inter, NULL);
  leti(g, "vocab_size", "vocab_size", m->vocab, NULL);
  if (m->f & F_REL_BIAS)
    leti(g, "relative_attention_num_buckets", "relative_attention_num_buckets",
         m->buckets, NULL);
  if (m->f & F_AUDIO_CONV) {
    leti(g, "num_mel_bins", "num_mel_bins", m->mel_bins, NULL);
    leti(g, "max_source_positions", "max_source_positions", m->src_positions, NULL);
  }
  if (m->f & F_LEARNED_POS)
    leti(g, fd->tgt_positions, "max_target_positions", m->positions, NULL);
}

/* Mamba's sizes (R-FAM-201), each at the key it comes from. */
static void emit_ssm_lets(Gen *g) {
  const Config *m = g->m;
  leti(g, "hidden_size", "hidden_size", m->hidden, NULL);
  leti(g, "num_hidden_layers", "num_hidden_layers", m->layers, NULL);
  bool given = spelled(g->cfg, "intermediate_size") != NULL;
  leti(g, given ? "intermediate_size" : "expand", "intermediate_size", m->inter,
       given ? NULL : "expand * hidden_size");
  leti(g, "state_size", "state_size", m->d_state, NULL);
  leti(g, "conv_kernel", "conv_kernel", m->d_conv, NULL);
  leti(g, "time_step_rank", "time_step_rank", m->dt_rank,
       m->dt_rank_auto ? "\"auto\": ceil(hidden_size / 16)" : NULL);
  leti(g, "vocab_size", "vocab_size", m->vocab, NULL);
}

static void emit_lets(Gen *g) {
  emit_run_lets(g);
  blank(g);
  if (g->m->f & F_ENCDEC) {
    emit_encdec_lets(g);
    return;
  }
  if (g->m->f & F_SSM) {
    emit_ssm_lets(g);
    return;
  }
  emit_attention_lets(g);
  emit_width_lets(g);
  emit_moe_lets(g);
}

/* ------------------------------------------------------------- reading */

/* The family of the config: its model_type, or its first architecture. */
static const Family *family_of(Cfg *c) {
  json_t *mt = json_object_get(c->root, "model_type");
  json_t *ar = json_object_get(c->root, "architectures");
  const char *names[NFAMILIES + 1];
  for (int i = 0; i < NFAMILIES; i++) names[i] = families[i].model_type;
  names[NFAMILIES] = NULL;
  if (json_is_string(mt)) {
    const char *t = json_string_value(mt);
    for (int i = 0; i < NFAMILIES; i++)
      if (strcmp(families[i].model_type, t) == 0) return &families[i];
    StrBuf list = {0};
    for (int i = 0; i < NFAMILIES; i++)
      sb_printf(&list, "%s%s", i ? ", " : "", names[i]);
    const char *why = NULL;
    for (size_t i = 0; i < sizeof unimported / sizeof *unimported; i++)
      if (strcmp(unimported[i][0], t) == 0) why = unimported[i][1];
    StrBuf hint = {0};
    const char *s = why ? NULL : util_suggest(t, names);
    if (s) sb_printf(&hint, "; did you mean '%s'?", s);
    if (why)
      cfg_fail(c, "model_type", "model_type '%s' is a family rooflint does not "
               "import: %s (rooflint imports %s)", t, why, sb_str(&list));
    else
      cfg_fail(c, "model_type",
               "unknown model_type '%s'%s (rooflint imports %s)", t,
               sb_str(&hint), sb_str(&list));
    sb_free(&list);
    sb_free(&hint);
    return NULL;
  }
  if (mt) {
    cfg_fail(c, "model_type", "'model_type' must be a string");
    return NULL;
  }
  const char *a = json_string_value(json_array_get(ar, 0));
  for (int i = 0; a && i < NFAMILIES; i++) {
    size_t n = strlen(families[i].arch);
    if (strncmp(a, families[i].arch, n) == 0 &&
        (strncmp(a + n, "For", 3) == 0 || strncmp(a + n, "Config", 5) == 0 ||
         strncmp(a + n, "LMHead", 6) == 0))
      return &families[i];
  }
  cfg_fail(c, "architectures",
           "no model_type, and architectures '%s' is not a family rooflint "
           "imports",
           a ? a : "?");
  return NULL;
}

static int64_t override_of(const ImportOptions *o, const char *name,
                           int64_t dflt, Cfg *c, bool *given) {
  for (int i = o->noverrides - 1; i >= 0; i--)
    if (strcmp(o->overrides[i].name, name) == 0) {
      const LetValue *v = &o->overrides[i].value;
      int64_t x = v->is_real ? (int64_t)v->r : v->i;
      bool zero_ok = strcmp(name, "zero") == 0;
      if ((v->is_real && v->r != floor(v->r)) || x < (zero_ok ? 0 : 1)) {
        if (!c->error) {
          StrBuf sb = {0};
          sb_printf(&sb, "-D %s must be an integer of at least %d", name,
                    zero_ok ? 0 : 1);
          c->error = xstrdup(sb_str(&sb));
          sb_free(&sb);
        }
        return dflt;
      }
      if (given) *given = true;
      return x;
    }
  return dflt;
}

/* The text of the last -D `name` (what follows its '='), or NULL. */
static const char *override_text(const ImportOptions *o, const char *name) {
  for (int i = o->noverrides - 1; i >= 0; i--)
    if (strcmp(o->overrides[i].name, name) == 0) {
      /* a -D added by a re-analysis is a number, with no text */
      const char *t = o->override_args ? o->override_args[i] : NULL;
      if (t && strchr(t, '=')) return strchr(t, '=') + 1;
      return o->overrides[i].value.i == 1 ? "1" : "0";
    }
  return NULL;
}

static void define_fail(Cfg *c, const char *name, const char *want,
                        const char *got) {
  if (c->error) return;
  StrBuf sb = {0};
  sb_printf(&sb, "-D %s must be %s, not '%s'", name, want, got);
  c->error = xstrdup(sb_str(&sb));
  sb_free(&sb);
}

/* -D recompute=full|selective wraps each layer's body in `checkpoint { }`
 * or `checkpoint selective { }` (R-PAR-010, R-PAR-014); -D
 * sequence_parallel=1 (0: the default) writes it in parallel { }
 * (R-PAR-015).  R-HF-017. */
static void read_recompute(Cfg *c, const ImportOptions *o, Config *m) {
  const char *r = override_text(o, "recompute");
  if (r && strcmp(r, "full") == 0) m->recompute = "checkpoint";
  else if (r && strcmp(r, "selective") == 0) m->recompute = "checkpoint selective";
  else if (r)
    define_fail(c, "recompute", "full or selective", r);
  const char *sp = override_text(o, "sequence_parallel");
  if (sp && strcmp(sp, "0") != 0 && strcmp(sp, "1") != 0)
    define_fail(c, "sequence_parallel", "0 or 1", sp);
  m->seq_par = sp && strcmp(sp, "1") == 0;
}

/* Field `key` of quantization_config: its string, NULL when absent or null,
 * and "" when of another kind, which then matches no value. */
static const char *quant_word(const json_t *q, const char *key) {
  const json_t *v = json_object_get(q, key);
  if (!v || json_is_null(v)) return NULL;
  return json_is_string(v) ? json_string_value(v) : "";
}

/* quantization_config (R-HF-013): honoured for fp8 checkpoints (block
 * or tensor scales, DeepSeek-V3's); for any other, m->qwarning says why
 * it is not, and warn_fields warns. */
static void read_quant(Cfg *c, Config *m) {
  json_t *q = json_object_get(c->root, "quantization_config");
  if (!q || json_is_null(q)) return;
  note_read(c, "quantization_config", q);
  if (!json_is_object(q)) {
    cfg_fail(c, "quantization_config", "'quantization_config' must be an object");
    return;
  }
  const char *method = json_string_value(json_object_get(q, "quant_method"));
  if (!method) {
    m->qwarning = "it names no quant_method";
    return;
  }
  if (strcmp(method, "fp8") == 0) {
    const char *fmt = quant_word(q, "fmt"), *act = quant_word(q, "activation_scheme");
    if (fmt && strcmp(fmt, "e4m3") != 0 && strcmp(fmt, "e5m2") != 0) {
      m->qwarning = "its fmt is neither e4m3 nor e5m2";
      return;
    }
    if (act && strcmp(act, "dynamic") != 0 && strcmp(act, "static") != 0) {
      m->qwarning = "its activation_scheme is neither dynamic nor static";
      return;
    }
    json_t *b = json_object_get(q, "weight_block_size");
    if (b && !json_is_null(b)) {
      json_t *bo = json_array_get(b, 0), *bi = json_array_get(b, 1);
      if (!json_is_array(b) || json_array_size(b) != 2 || !json_is_integer(bo) ||
          !json_is_integer(bi) || json_integer_value(bo) < 1 ||
          json_integer_value(bi) < 1) {
        cfg_fail(c, "quantization_config", "'quantization_config' "
                 "'weight_block_size' must be two integers of at least 1, "
                 "like [128, 128]");
        return;
      }
      m->block_out = (int64_t)json_integer_value(bo);
      m->block_in = (int64_t)json_integer_value(bi);
    }
    size_t k;
    json_t *v, *keep = json_object_get(q, "modules_to_not_convert");
    if (keep && !json_is_null(keep) && !json_is_array(keep)) {
      m->qwarning = "its modules_to_not_convert is not a list of module names";
      return;
    }
    json_array_foreach(keep, k, v) {
      const char *mod = json_string_value(v);
      if (!mod || (strcmp(mod, "lm_head") != 0 && strcmp(mod, "gate") != 0)) {
        m->qwarning = "its modules_to_not_convert keeps layers in the plan "
                      "dtype that the importer would write in fp8";
        return;
      }
    }
    m->qdtype = fmt && strcmp(fmt, "e5m2") == 0 ? "fp8_e5m2" : "fp8";
  } else {
    /* GPTQ's and AWQ's group scales and zeros (4-bit, groups of 128: 4%
     * of the weights' bytes) are read by every GEMM, and a matmul has no
     * operand for them */
    m->qwarning = "rooflint prices fp8 checkpoints only (a GPTQ or AWQ "
                  "GEMM also reads its group scales and zeros, which a "
                  "matmul has no operand for)";
  }
}

/* A list of layer numbers as one flag a layer, read once, so a layer's
 * kind is then looked up, not searched for in the list (R-HF-015); NULL
 * after an error or past the layers' bound (check_layers says so).  An
 * entry that is no layer's number is an error at the key (R-HF-005): left
 * out, it would price that layer as the other kind.  A number may repeat,
 * and 3.0 is 3, as the modelling code's `in` test takes them. */
static bool *layer_list(Cfg *c, const Config *m, const char *key) {
  json_t *list = json_object_get(c->root, key);
  note_read(c, key, list);
  if (!json_is_array(list)) {
    cfg_fail(c, key, "'%s' must be a list of layer numbers from 0 to %lld", key,
             (long long)m->layers - 1);
    return NULL;
  }
  if (c->error || m->layers > HF_MAX_LAYERS) return NULL;
  bool *at = xcalloc((size_t)m->layers, sizeof *at);
  size_t k;
  json_t *v;
  json_array_foreach(list, k, v) {
    double r = json_is_real(v) ? json_real_value(v) : -1;
    int64_t i = json_is_integer(v) ? (int64_t)json_integer_value(v)
                : r == floor(r) && r < (double)m->layers ? (int64_t)r : -1;
    if (i >= 0 && i < m->layers) {
      at[i] = true;
      continue;
    }
    char *val = json_text(v);
    cfg_fail(c, key, "'%s' must be a list of layer numbers from 0 to %lld: %s "
             "is not one", key, (long long)m->layers - 1, val ? val : "?");
    free(val);
    free(at);
    return NULL;
  }
  return at;
}

/* Qwen's mlp_only_layers: the layers with a dense MLP. */
static void read_mlp_only(Cfg *c, Config *m) {
  if (json_object_get(c->root, "mlp_only_layers"))
    m->mlp_only = layer_list(c, m, "mlp_only_layers");
}

/* A list of one of two values a layer (layer_types, no_rope_layers) into
 * at[layers]: `kind` says whether a value is one of them, and which; an
 * error names the two (`want`). */
static void per_layer(Cfg *c, const Config *m, json_t *list, const char *key,
                      bool (*kind)(const json_t *v, bool *out), const char *want,
                      bool *at) {
  note_read(c, key, list);
  bool ok = json_is_array(list) && (int64_t)json_array_size(list) == m->layers;
  size_t k;
  json_t *v;
  json_array_foreach(list, k, v) ok = ok && kind(v, &at[k]);
  if (!ok)
    cfg_fail(c, key, "'%s' must be a list of %lld %s", key, (long long)m->layers, want);
}

/* layer_types' values: true for a sliding-window layer. */
static bool sliding_kind(const json_t *v, bool *out) {
  const char *t = json_string_value(v);
  if (!t) return false;
  *out = strcmp(t, "sliding_attention") == 0;
  return *out || strcmp(t, "full_attention") == 0;
}

/* no_rope_layers' values: true for a NoPE layer (0). */
static bool nope_kind(const json_t *v, bool *out) {
  json_int_t i = json_integer_value(v);
  *out = i == 0;
  return json_is_integer(v) && (i == 0 || i == 1);
}

/* Which layers have a sliding window (R-FAM-005): layer_types, one
 * "sliding_attention" or "full_attention" a layer, or else
 * sliding_window_pattern N, every Nth layer global (Gemma 3's config
 * class derives the one from the other). */
static void read_layer_types(Cfg *c, Config *m) {
  if (c->error || m->layers > HF_MAX_LAYERS) return; /* check_layers says so */
  m->sliding_at = xcalloc((size_t)m->layers, sizeof *m->sliding_at);
  json_t *list = json_object_get(c->root, "layer_types");
  if (list && !json_is_null(list)) {
    per_layer(c, m, list, "layer_types", sliding_kind,
              "\"sliding_attention\" or \"full_attention\"", m->sliding_at);
    return;
  }
  int64_t n = cfg_int(c, "sliding_window_pattern", 1, 1);
  for (int64_t i = 0; i < m->layers; i++) m->sliding_at[i] = (i + 1) % n != 0;
}

/* Checks that `a` is a multiple of `b`, the config keys named. */
static void multiple(Cfg *c, const char *ka, int64_t a, const char *kb,
                     int64_t b) {
  if (b > 0 && a % b != 0)
    cfg_fail(c, ka, "'%s' %lld is not a multiple of '%s' %lld", ka,
             (long long)a, kb, (long long)b);
}

/* --phase: prefill, decode or train; false after an error. */
static bool read_phase(Cfg *c, const ImportOptions *o, Config *m) {
  m->phase = PH_PREFILL;
  if (o->phase) {
    int i = 0;
    while (phase_names[i] && strcmp(phase_names[i], o->phase) != 0) i++;
    if (!phase_names[i]) {
      StrBuf sb = {0};
      const char *s = util_suggest(o->phase, phase_names);
      sb_printf(&sb, "unknown --phase '%s'", o->phase);
      if (s) sb_printf(&sb, "; did you mean '%s'?", s);
      sb_printf(&sb, " (prefill, decode or train)");
      c->error = xstrdup(sb_str(&sb));
      sb_free(&sb);
      return false;
    }
    m->phase = (Phase)i;
  }
  if ((m->f & F_ENCODER) && m->phase == PH_DECODE) {
    cfg_fail(c, "model_type", "a %s model is an encoder: it has no decode phase "
             "(use --phase prefill or train)", m->fam->model_type);
    return false;
  }
  return true;
}

/* The fields that change a family's block (R-FAM-002): the parallel
 * block turned off (neox's use_parallel_residual, falcon's
 * parallel_attn), Falcon's new_decoder_architecture (two norms in the
 * parallel block, num_ln_in_parallel_attn) and alibi (ALiBi instead of
 * rotary). */
static void read_block_layout(Cfg *c, Config *m) {
  const char *pf = m->fam->parallel_field;
  if (pf && (m->f & F_PARALLEL_RESID) && !cfg_bool(c, pf, true))
    m->f &= ~(F_PARALLEL_RESID | F_ONE_NORM);
  if (!(m->f & F_MULTI_QUERY)) return;
  if (cfg_bool(c, "new_decoder_architecture", false) &&
      cfg_int(c, "num_ln_in_parallel_attn", 2, 1) == 2)
    m->f &= ~F_ONE_NORM;
  if (cfg_bool(c, "alibi", false)) m->f = (m->f & ~F_ROPE) | F_ALIBI;
}

/* The heads and their dims: multi-head latent attention's ranks, or the
 * grouped KV heads, head_dim and the rotary part of it. */
static void read_attention(Cfg *c, Config *m) {
  if (m->f & F_MLA) {
    m->q_lora = cfg_int(c, "q_lora_rank", 0, 1);
    m->kv_lora = cfg_int(c, "kv_lora_rank", -1, 1);
    m->nope = cfg_int(c, "qk_nope_head_dim", -1, 1);
    m->rope_dim = cfg_int(c, "qk_rope_head_dim", -1, 2);
    m->v_dim = cfg_int(c, "v_head_dim", -1, 1);
    m->head_dim = m->nope + m->rope_dim;
    m->kv_heads = m->heads;
    return;
  }
  m->kv_heads = cfg_int(c, "num_key_value_heads", m->heads, 1);
  /* Falcon: multi_query is one KV head unless new_decoder_architecture
   * (then num_kv_heads) */
  if ((m->f & F_MULTI_QUERY) && !cfg_bool(c, "new_decoder_architecture", false) &&
      cfg_bool(c, "multi_query", true))
    m->kv_heads = 1;
  if (c->error) return;
  multiple(c, spelled(c, "num_attention_heads"), m->heads,
           "num_key_value_heads", m->kv_heads);
  if (!spelled(c, "head_dim"))
    multiple(c, spelled(c, "hidden_size"), m->hidden,
             spelled(c, "num_attention_heads"), m->heads);
  m->head_dim = cfg_int(c, "head_dim", m->heads ? m->hidden / m->heads : 1, 2);
  if (c->error) return;
  double pct = 1;
  if (m->f & F_PARTIAL_ROPE) {
    pct = cfg_real(c, "rotary_pct", 1);
    if (!spelled(c, "rotary_pct")) pct = cfg_real(c, "partial_rotary_factor", 1);
  }
  m->rotary_dim = (int64_t)(m->head_dim * pct);
  /* GPT-J gives the rotary width itself (null: the whole head) */
  if ((m->f & F_PARTIAL_ROPE) && spelled(c, "rotary_dim"))
    m->rotary_dim = cfg_int(c, "rotary_dim", m->head_dim, 2);
  if (!c->error && m->rotary_dim > m->head_dim)
    cfg_fail(c, "rotary_dim", "'rotary_dim' %lld is more than head_dim %lld",
             (long long)m->rotary_dim, (long long)m->head_dim);
  m->rotary_dim -= m->rotary_dim % 2;
}

/* The MLP's width, positions, tying, biases and the sliding window. */
static void read_layer_shape(Cfg *c, Config *m) {
  /* a plain MLP's width defaults to 4 * hidden_size (gpt2, bloom, falcon,
   * gptj's n_inner null); a gated one's is always given */
  bool dense_needed = !(m->f & F_MOE) && (m->f & F_GATED);
  m->inter = cfg_int(c, "intermediate_size", dense_needed ? -1 : 4 * m->hidden, 1);
  if (m->f & F_LEARNED_POS) {
    m->max_pos = cfg_int(c, "max_position_embeddings", -1, 1);
    m->positions = m->max_pos;
  }
  if (m->f & F_POS_OFFSET) {
    /* RoBERTa numbers positions from padding_idx + 1 (create_position_ids_
     * from_input_ids): the rows below are never used */
    int64_t pad = cfg_int(c, "pad_token_id", 1, 0);
    if (!c->error && pad + 1 >= m->max_pos)
      cfg_fail(c, "pad_token_id", "'pad_token_id' %lld leaves no positions of "
               "the %lld position embeddings", (long long)pad, (long long)m->max_pos);
    m->positions = m->max_pos - pad - 1;
  }
  if (m->f & F_ENCODER) m->type_vocab = cfg_int(c, "type_vocab_size", 2, 1);
  m->tied = cfg_bool(c, "tie_word_embeddings", (m->f & F_TIED) != 0);
  bool ab = cfg_bool(c, "attention_bias", false);
  if (!spelled(c, "attention_bias")) ab = cfg_bool(c, "qkv_bias", ab);
  bool all = (m->f & F_ALL_BIAS) != 0;
  if (m->fam->bias_field) all = cfg_bool(c, m->fam->bias_field, all);
  m->qkv_bias = ab || all || (m->f & F_QKV_BIAS);
  m->o_bias = (ab && !(m->f & F_NO_O_BIAS)) || all;
  m->mlp_bias = cfg_bool(c, "mlp_bias", false) || all || (m->f & F_MLP_BIAS);
  m->head_bias = (m->f & F_HEAD_BIAS) || cfg_bool(c, "lm_head_bias", false);
  if (m->f & F_LAYER_TYPES) {
    m->window = cfg_int(c, "sliding_window", 0, 1);
    read_layer_types(c, m);
  }
  if (m->f & (F_SLIDING | F_ALT_SLIDING)) {
    bool use = true;
    if (m->f & F_USE_SLIDING) use = cfg_bool(c, "use_sliding_window", false);
    json_t *w = json_object_get(c->root, "sliding_window");
    if (w && !json_is_null(w)) {
      int64_t v = cfg_int(c, "sliding_window", 0, 1);
      if (use) m->window = v;
    }
  }
}

/* The activation and the soft caps; false after an error. */
static bool read_activation(Cfg *c, Config *m) {
  /* Gemma's code reads hidden_activation and ignores hidden_act */
  const char *af = m->fam->act_field ? m->fam->act_field : "hidden_act";
  m->act_key = spelled(c, af);
  const char *act = cfg_str(c, af, m->fam->act);
  m->act = act_op(act);
  if (!m->act) {
    cfg_fail(c, m->act_key, "hidden_act '%s' is not an activation rooflint "
             "knows (silu, gelu, gelu_new, gelu_pytorch_tanh, relu, ...)", act);
    return false;
  }
  if (m->f & F_SOFTCAP) {
    m->final_cap = cfg_real(c, "final_logit_softcapping", 0);
    m->attn_cap = cfg_real(c, "attn_logit_softcapping", 0);
  }
  return true;
}

/* The experts: counts, widths, the shared expert, group-limited routing
 * and which layers are dense. */
static void read_moe(Cfg *c, Config *m) {
  m->experts = cfg_int(c, "num_experts", -1, 1);
  m->top_k = cfg_int(c, "num_experts_per_tok", -1, 1);
  if (!c->error && m->top_k > m->experts)
    cfg_fail(c, "num_experts_per_tok",
             "'num_experts_per_tok' %lld is more than the %lld experts",
             (long long)m->top_k, (long long)m->experts);
  m->moe_inter = cfg_int(c, "moe_intermediate_size", m->inter, 1);
  if (m->f & F_TOPK_SIGMOID) {
    m->shared_inter = m->moe_inter;
  } else if (m->f & F_SHARED_EXPERT) {
    if (spelled(c, "n_shared_experts"))
      m->shared_inter = cfg_int(c, "n_shared_experts", 1, 1) * m->moe_inter;
    else
      m->shared_inter = cfg_int(c, "shared_expert_intermediate_size", -1, 1);
  }
  /* DeepSeek's group-limited routing: topk_method greedy ignores the
   * groups (DeepSeek-V2-Lite); group_limited_greedy and noaux_tc keep
   * a token's experts within topk_group of n_group groups */
  if (spelled(c, "n_group") && cfg_int(c, "n_group", 1, 1) > 1 &&
      strcmp(cfg_str(c, "topk_method", "greedy"), "greedy") != 0) {
    m->n_group = cfg_int(c, "n_group", 1, 1);
    m->topk_group = cfg_int(c, "topk_group", -1, 1);
    if (!c->error && (m->experts % m->n_group != 0 || m->topk_group > m->n_group ||
                      m->topk_group * (m->experts / m->n_group) < m->top_k))
      cfg_fail(c, "topk_group", "'n_group' %lld and 'topk_group' %lld do not "
               "fit %lld experts, %lld a token",
               (long long)m->n_group, (long long)m->topk_group,
               (long long)m->experts, (long long)m->top_k);
  }
  m->first_dense = cfg_int(c, "first_k_dense_replace", 0, 0);
  m->sparse_step = cfg_int(c, "decoder_sparse_step", 1, 1);
  if (spelled(c, "moe_layer_freq") && cfg_int(c, "moe_layer_freq", 1, 1) != 1)
    cfg_fail(c, "moe_layer_freq", "'moe_layer_freq' other than 1 is not "
             "supported");
  read_mlp_only(c, m);
  if (m->first_dense > m->layers)
    cfg_fail(c, "first_k_dense_replace", "'first_k_dense_replace' %lld is "
             "more than the %lld layers", (long long)m->first_dense,
             (long long)m->layers);
}

/* The storage dtype and the quantization; false after an error. */
static bool read_dtype(Cfg *c, Config *m) {
  const char *dt = cfg_str(c, "torch_dtype", NULL);
  m->dtype = dt ? dtype_of(dt) : "bf16";
  if (!m->dtype) {
    cfg_fail(c, spelled(c, "torch_dtype"), "torch_dtype '%s' is not a dtype "
             "rooflint knows (float16, bfloat16, float32)", dt);
    return false;
  }
  read_quant(c, m);
  /* training updates master weights in the plan dtype: the checkpoint's
   * storage is the served model's (the header says so) */
  if (m->phase == PH_TRAIN && m->qdtype) m->qtrain = m->qdtype, m->qdtype = NULL;
  return true;
}

/* The -D values the text is made with, and whether -D tensor divides the
 * heads and widths it splits. */
static void read_overrides(Cfg *c, const ImportOptions *o, Config *m) {
  int64_t def_seq = m->phase == PH_DECODE ? 1 : 2048;
  if (m->positions && def_seq > m->positions) def_seq = m->positions;
  m->batch = override_of(o, "batch", 1, c, NULL);
  m->seq = override_of(o, "seq", def_seq, c, NULL);
  m->ctx = override_of(o, "ctx", 2048, c, NULL);
  for (int i = 0; i < NPAR; i++) m->par[i] = override_of(o, par_keys[i], 0, c, NULL);
  read_recompute(c, o, m);
  int64_t t = tp(m);
  if (!c->error && t > 1) {
    static const char *const what[] = {"num_attention_heads", "num_key_value_heads",
                                       "intermediate_size", "moe_intermediate_size"};
    int64_t vals[] = {m->heads, (m->f & F_MLA) ? m->heads : m->kv_heads,
                      m->inter, (m->f & F_MOE) ? m->moe_inter : t};
    for (int i = 0; i < 4 && !c->error; i++)
      if (vals[i] % t != 0)
        cfg_fail(c, spelled(c, what[i]) ? spelled(c, what[i]) : what[i],
                 "-D tensor=%lld does not divide '%s' %lld: each GPU holds "
                 "whole heads and equal slices",
                 (long long)t, what[i], (long long)vals[i]);
  }
}

/* Which layers are NoPE (R-FAM-204): no_rope_layers, 1 a rotary layer and
 * 0 a NoPE one, or when absent or empty every no_rope_layer_interval-th
 * (4), as Llama4TextConfig derives it. */
static void read_nope_layers(Cfg *c, Config *m) {
  m->nope_at = xcalloc((size_t)m->layers, sizeof *m->nope_at);
  json_t *list = json_object_get(c->root, "no_rope_layers");
  bool empty = json_is_array(list) && json_array_size(list) == 0;
  if (list && !json_is_null(list) && !empty) {
    per_layer(c, m, list, "no_rope_layers", nope_kind, "0 or 1", m->nope_at);
    return;
  }
  int64_t n = cfg_int(c, "no_rope_layer_interval", 4, 1);
  for (int64_t i = 0; i < m->layers; i++) m->nope_at[i] = (i + 1) % n == 0;
}

/* Llama 4's layers (R-FAM-204): the dense width intermediate_size_mlp,
 * the layers with experts (moe_layers, else every
 * interleave_moe_layer_step-th), the NoPE layers, the chunk, the q/k norm
 * and the NoPE layers' temperature. */
static void read_llama4(Cfg *c, Config *m) {
  if (c->error || m->layers > HF_MAX_LAYERS) return; /* check_layers says so */
  m->inter = cfg_int(c, "intermediate_size_mlp", -1, 1);
  m->sparse_step = cfg_int(c, "interleave_moe_layer_step", 1, 1);
  json_t *ml = json_object_get(c->root, "moe_layers");
  if (ml && !json_is_null(ml)) {
    bool *moe = layer_list(c, m, "moe_layers");
    if (!moe) return;
    m->mlp_only = xcalloc((size_t)m->layers, sizeof *m->mlp_only);
    for (int64_t i = 0; i < m->layers; i++) m->mlp_only[i] = !moe[i];
    m->sparse_step = 1;
    free(moe);
  }
  read_nope_layers(c, m);
  json_t *w = json_object_get(c->root, "attention_chunk_size");
  m->window = w && json_is_null(w) ? 0 : cfg_int(c, "attention_chunk_size", 8192, 1);
  if (w && json_is_null(w)) note_read(c, "attention_chunk_size", w);
  m->sliding_at = xcalloc((size_t)m->layers, sizeof *m->sliding_at);
  for (int64_t i = 0; i < m->layers; i++) m->sliding_at[i] = !m->nope_at[i];
  if (cfg_bool(c, "use_qk_norm", true)) m->f |= F_QK_NORM;
  json_t *t = json_object_get(c->root, "attn_temperature_tuning");
  if (t) note_read(c, "attn_temperature_tuning", t);
  if (t && !json_is_boolean(t) && !json_is_number(t))
    cfg_fail(c, "attn_temperature_tuning",
             "'attn_temperature_tuning' must be true, false or a number");
  m->attn_temp = !t || json_is_true(t) ||
                 (json_is_number(t) && json_number_value(t) != 0);
}

/* Mamba's mixer (R-FAM-201), with MambaConfig's defaults: intermediate_size
 * expand * hidden_size, time_step_rank "auto" ceil(hidden_size / 16),
 * biases on the conv only, a tied head.  It is written whole on each GPU:
 * -D tensor is refused. */
static void read_ssm(Cfg *c, const ImportOptions *o, Config *m) {
  int64_t expand = cfg_int(c, "expand", 2, 1);
  m->inter = cfg_int(c, "intermediate_size", expand * m->hidden, 1);
  m->d_state = cfg_int(c, "state_size", 16, 1);
  m->d_conv = cfg_int(c, "conv_kernel", 4, 1);
  json_t *r = json_object_get(c->root, "time_step_rank");
  m->dt_rank_auto = !r || (json_is_string(r) && strcmp(json_string_value(r), "auto") == 0);
  if (r && m->dt_rank_auto) note_read(c, "time_step_rank", r);
  m->dt_rank = m->dt_rank_auto ? (m->hidden + 15) / 16
                               : cfg_int(c, "time_step_rank", 1, 1);
  m->mlp_bias = cfg_bool(c, "use_bias", false);
  m->conv_bias = cfg_bool(c, "use_conv_bias", true);
  m->tied = cfg_bool(c, "tie_word_embeddings", true);
  if (!c->error && override_of(o, "tensor", 1, c, NULL) > 1)
    cfg_fail(c, "model_type", "-D tensor: a %s model is not written tensor-"
             "parallel (its scan's state is not split across GPUs here)",
             m->fam->model_type);
}

static void read_model(Cfg *c, const ImportOptions *o, Config *m) {
  m->fam = c->fam;
  m->f = c->fam->features;
  read_block_layout(c, m);
  if (!read_phase(c, o, m)) return;
  if ((m->f & F_USE_QK_NORM) && !cfg_bool(c, "use_qk_norm", false))
    m->f &= ~F_QK_NORM;
  m->hidden = cfg_int(c, "hidden_size", -1, 1);
  m->layers = cfg_int(c, "num_hidden_layers", -1, 1);
  if (!(m->f & F_SSM)) m->heads = cfg_int(c, "num_attention_heads", -1, 1);
  m->vocab = cfg_int(c, "vocab_size", -1, 1);
  if (c->error) return;
  if (m->f & F_SSM) {
    read_ssm(c, o, m);
  } else {
    read_attention(c, m);
    if (c->error) return;
    read_layer_shape(c, m);
  }
  if (!read_activation(c, m)) return;
  if (m->f & F_MOE) read_moe(c, m);
  if (m->f & F_CHUNKED) read_llama4(c, m);
  if (!read_dtype(c, m)) return;
  read_overrides(c, o, m);
}

/* A size of both stacks that the text writes as one let: the decoder's
 * field, which must equal the encoder's. */
static int64_t same_in_both(Cfg *c, const char *enc, const char *dec) {
  int64_t e = cfg_int(c, enc, -1, 1), d = cfg_int(c, dec, e, 1);
  if (!c->error && d != e)
    cfg_fail(c, dec, "'%s' %lld differs from '%s' %lld: rooflint writes the "
             "two stacks with one", dec, (long long)d, enc, (long long)e);
  return d;
}

/* T5's feed_forward_proj: "ACT" or "gated-ACT" (T5Config: "gated-gelu" is
 * gelu_new); Whisper's activation_function. */
static bool read_encdec_act(Cfg *c, Config *m) {
  const char *af = m->fam->act_field ? m->fam->act_field : "hidden_act";
  m->act_key = spelled(c, af);
  const char *act = cfg_str(c, af, m->fam->act);
  if (c->error) return false;
  if (m->fam->act_field && strncmp(act, "gated-", 6) == 0) {
    m->f |= F_GATED;
    act += 6;
    if (strcmp(act, "gelu") == 0) act = "gelu_new";
  }
  m->act = act_op(act);
  if (!m->act)
    cfg_fail(c, m->act_key, "%s '%s' is not an activation rooflint knows "
             "(relu, gated-gelu, gelu, gelu_new, silu, ...)", af, act);
  return m->act != NULL;
}

/* The sizes of the two stacks, the positions and T5's buckets. */
static void read_encdec_sizes(Cfg *c, Config *m) {
  const struct EncDecFields *fd = encdec_of(m->fam);
  m->hidden = cfg_int(c, "hidden_size", -1, 1);
  m->enc_layers = cfg_int(c, fd->enc_layers, -1, 1);
  m->layers = cfg_int(c, fd->dec_layers, m->enc_layers, 1);
  m->heads = m->kv_heads = same_in_both(c, fd->enc_heads, fd->dec_heads);
  m->vocab = cfg_int(c, "vocab_size", -1, 1);
  if (c->error) return;
  if (!fd->head_dim)
    multiple(c, spelled(c, "hidden_size"), m->hidden, fd->dec_heads, m->heads);
  m->head_dim = fd->head_dim ? cfg_int(c, fd->head_dim, -1, 1) : m->hidden / m->heads;
  m->inter = same_in_both(c, fd->enc_ffn, fd->dec_ffn);
  const char *many = m->enc_layers > HF_MAX_LAYERS ? fd->enc_layers
                     : m->layers > HF_MAX_LAYERS    ? fd->dec_layers : NULL;
  if (many)
    cfg_fail(c, many, "'%s' %lld is more layers than rooflint imports (%d at most)",
             many, (long long)(many == fd->enc_layers ? m->enc_layers : m->layers),
             HF_MAX_LAYERS);
  if (m->f & F_REL_BIAS) m->buckets = cfg_int(c, "relative_attention_num_buckets", 32, 1);
  if (m->f & F_AUDIO_CONV) {
    m->mel_bins = cfg_int(c, "num_mel_bins", 80, 1);
    m->src_positions = cfg_int(c, fd->src_positions, -1, 1);
  }
  /* T5's n_positions bounds no table (its positions are relative): it
   * is the length the defaults take */
  m->positions = cfg_int(c, fd->tgt_positions, (m->f & F_LEARNED_POS) ? -1 : 512, 1);
  if ((m->f & F_LEARNED_POS) && cfg_bool(c, "scale_embedding", false))
    m->f |= F_EMBED_SCALE;
}

/* The lengths (R-FAM-101): src_seq, the encoder's positions (Whisper's
 * max_source_positions, at most that; T5's n_positions), seq the decoder's
 * tokens, and in decode ctx the decoder's positions less the step's. */
static void read_encdec_lengths(Cfg *c, const ImportOptions *o, Config *m) {
  int64_t src = m->src_positions ? m->src_positions : m->positions;
  m->src_seq = override_of(o, "src_seq", src, c, NULL);
  if (!c->error && m->src_positions && m->src_seq > m->src_positions) {
    StrBuf sb = {0};
    sb_printf(&sb, "-D src_seq=%lld is more than max_source_positions %lld",
              (long long)m->src_seq, (long long)m->src_positions);
    c->error = xstrdup(sb_str(&sb));
    sb_free(&sb);
  }
  bool given = false;
  override_of(o, "ctx", 0, c, &given);
  if (!given && m->phase == PH_DECODE && m->positions > m->seq)
    m->ctx = m->positions - m->seq;
}

/* An encoder-decoder's config (R-FAM-101), read as read_model reads a
 * decoder's. */
static void read_encdec(Cfg *c, const ImportOptions *o, Config *m) {
  m->fam = c->fam;
  m->f = c->fam->features;
  if (!read_phase(c, o, m)) return;
  read_encdec_sizes(c, m);
  if (c->error || !read_encdec_act(c, m)) return;
  m->tied = cfg_bool(c, "tie_word_embeddings", (m->f & F_TIED) != 0);
  m->qkv_bias = m->o_bias = m->mlp_bias = (m->f & F_ALL_BIAS) != 0;
  if (!read_dtype(c, m)) return;
  read_overrides(c, o, m);
  read_encdec_lengths(c, o, m);
  /* R-PAR-009 splits one repeat over the stages: of two stacks, it would
   * put the whole other stack on one stage */
  if (!c->error && par(m, "pipeline") > 1)
    c->error = xstrdup("-D pipeline: an encoder-decoder's two stacks are not "
                       "split into pipeline stages (use -D tensor or -D data)");
}

/* A warning for each field that changes the cost and is not modelled, or
 * that the importer does not know at all (R-HF-006). */
static void add_warning(Imported *out, char *msg, char *origin) {
  /* Capacity doubles (8, 16, 32, ...: full when the count is 8 or a larger
   * power of two), so a config of many unknown keys stays linear. */
  size_t n = out->ndiags;
  if (n == 0 || (n >= 8 && (n & (n - 1)) == 0))
    out->diags = xrealloc(out->diags, (n ? 2 * n : 8) * sizeof *out->diags);
  out->diags[out->ndiags++] = (ImportDiag){0, SEV_WARNING, msg, origin};
}

/* R-DIAG-001: each warning is placed at its key (an ImportDiag on no line
 * of the text, with the key's origin). */
static void warn_fields(Cfg *c, const Config *m, Imported *out) {
  const char *key;
  json_t *v;
  json_object_foreach(c->root, key, v) {
    if (json_is_null(v)) continue;
    const char *why = NULL;
    for (size_t i = 0; i < sizeof cost_unmodelled / sizeof *cost_unmodelled; i++)
      if (strcmp(cost_unmodelled[i][0], key) == 0) why = cost_unmodelled[i][1];
    bool known = false;
    for (int i = 0; !why && known_fields[i]; i++) known = known || strcmp(known_fields[i], key) == 0;
    if (known) continue;
    if ((m->f & F_LAYER_TYPES) && strcmp(key, "layer_types") == 0) continue;
    if ((m->f & F_CHUNKED) && (strcmp(key, "attention_chunk_size") == 0 ||
                               strcmp(key, "no_rope_layers") == 0))
      continue;
    if (strcmp(key, "num_nextn_predict_layers") == 0 && json_is_integer(v) &&
        json_integer_value(v) == 0)
      continue;
    StrBuf sb = {0};
    if (strcmp(key, "quantization_config") == 0) {
      if (!m->qwarning) {
        sb_free(&sb);
        continue;
      }
      const char *qm = json_string_value(json_object_get(v, "quant_method"));
      sb_printf(&sb, "'quantization_config'");
      if (qm) sb_printf(&sb, " (quant_method \"%s\")", qm);
      sb_printf(&sb, " changes the cost (the weights' storage dtype) and is "
                "not modelled: %s; the weights stay in the plan dtype", m->qwarning);
    } else if (why)
      sb_printf(&sb, "'%s' changes the cost (%s) and is not modelled", key, why);
    else
      sb_printf(&sb, "'%s' is not a field the %s importer knows; if it "
                "changes the cost, edit the generated model",
                key, c->fam->model_type);
    char *origin = key_origin(c, key);
    if (!origin) { /* not found as written (escapes): named, not placed */
      StrBuf o = {0};
      sb_puts(&o, "key ");
      import_put_escaped(&o, key, IMPORT_QUOTED);
      origin = o.data;
    }
    add_warning(out, xstrdup(sb_str(&sb)), origin);
    sb_free(&sb);
  }
}

/* A model name from the file's: "llama2_7b.json" -> llama2_7b; a file
 * named config.json is named after its model_type. */
static char *model_name(const char *path, const Family *fam) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strcspn(base, ".");
  StrBuf sb = {0};
  if (n == 0 || strncmp(base, "config", n) == 0) sb_puts(&sb, fam->model_type);
  else {
    if (!((base[0] >= 'a' && base[0] <= 'z') || (base[0] >= 'A' && base[0] <= 'Z') || base[0] == '_'))
      sb_putc(&sb, 'm');
    for (size_t i = 0; i < n; i++) {
      char ch = base[i];
      bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                (ch >= '0' && ch <= '9') || ch == '_';
      sb_putc(&sb, ok ? ch : '_');
    }
  }
  char *s = xstrdup(sb_str(&sb));
  sb_free(&sb);
  return s;
}

static void emit_header(Gen *g) {
  const Config *m = g->m;
  static const char *const phase_doc[] = {
      "prefill: one forward pass over a prompt of `seq` tokens, causal "
      "attention,\n#   the logits of its last position",
      "decode: one step of `seq` new tokens (1) over a KV cache of `ctx` "
      "tokens\n#   (`cache`, `append`)",
      "train: forward and backward of `seq`-token sequences with the "
      "optimizer\n#   state (mode train), a cross-entropy loss"};
  StrBuf path = {0};
  import_put_escaped(&path, g->cfg->path, IMPORT_COMMENT);
  line(g, NULL, "# Generated by `rooflint import` from %s (a Hugging Face config.json).",
       sb_str(&path));
  sb_free(&path);
  line(g, NULL, "# model_type %s: %s.", m->fam->model_type, m->fam->doc);
  for (int i = 0; (m->f & F_ENCDEC) && i < 2; i++)
    line(g, NULL, "%s", encdec_of(m->fam)->modules[i]);
  if (m->f & F_TEXT_CONFIG)
    line(g, "text_config", "# The language model only: the fields below are "
         "text_config's; vision_config is not written.");
  static const char *const encdec_phase_doc[] = {
      "prefill: the encoder over `src_seq` positions, then the decoder over "
      "`seq`\n#   target tokens (causal self-attention, cross-attention), the "
      "logits of its last position",
      "decode: one decoder step of `seq` new tokens (1) over a self-attention "
      "cache\n#   of `ctx` tokens and the cross-attention cache of the encoder's "
      "`src_seq` positions",
      "train: forward and backward of both stacks (`src_seq` encoder positions, "
      "`seq`\n#   decoder tokens) with the optimizer state (mode train), a "
      "cross-entropy loss"};
  /* one line() a line, so each line of the text has its origin */
  const char *doc = (m->f & F_ENCDEC ? encdec_phase_doc : phase_doc)[m->phase];
  if ((m->f & F_SSM) && m->phase == PH_DECODE)
    doc = "decode: one step of `seq` new tokens (1); each layer reads and "
          "updates\n#   its recurrent state (`cache`: a constant size, no KV "
          "cache and no context)";
  const char *nl = strchr(doc, '\n');
  line(g, NULL, "# Phase %.*s", (int)(nl - doc), doc);
  line(g, NULL, "%s.", nl + 1);
  line(g, NULL, "#");
  line(g, NULL, "# The config's fields this model is written from (each let below names");
  line(g, NULL, "# its field; weights use the checkpoint's module names):");
  const char *p = sb_str(&g->cfg->read);
  while (*p) {
    const char *e = strchr(p, '\n');
    line(g, NULL, "%.*s", (int)(e - p), p);
    p = e + 1;
  }
  if (!m->act_key)
    line(g, NULL, "# Activation %s: the family's default (the config has no %s).",
         m->fam->act, m->fam->act_field ? m->fam->act_field : "hidden_act");
  if (spelled(g->cfg, "torch_dtype"))
    line(g, NULL, "# Plan dtype %s, from torch_dtype (`rooflint --dtype DT` for another).",
         m->dtype);
  else
    line(g, NULL, "# Plan dtype %s: the config has no torch_dtype (`rooflint --dtype DT` "
         "for another).", m->dtype);
  if (m->qdtype) {
    char per[96];
    if (m->block_out)
      snprintf(per, sizeof per, "an fp32 scale per %lld x %lld block of each "
               "(`*_scale_inv`", (long long)m->block_out, (long long)m->block_in);
    else
      snprintf(per, sizeof per, "one fp32 scale each (`*_scale`");
    line(g, "quantization_config", "# Quantized (quant_method fp8): the attention's and "
         "MLPs' weights %s, %s buffers, no parameters), their GEMMs at the fp8 "
         "peak on activations quantized on the fly; the router, embeddings, "
         "norms and head stay %s.", m->qdtype, per, m->dtype);
  }
  if (m->qtrain)
    line(g, "quantization_config", "# quantization_config (%s weights) is the served "
         "checkpoint's storage: training keeps the weights, their gradients "
         "and optimizer state in %s.", m->qtrain, m->dtype);
  if (tp(m) > 1)
    line(g, "tensor", "# Tensor parallel over `tensor` GPUs: each weight is one GPU's slice "
         "(shard=tensor), the row-parallel projections all-reduce.");
  line(g, NULL, "# Ordinary rooflint text: edit it freely.");
  blank(g);
}

static void emit_model(Gen *g) {
  const Config *m = g->m;
  emit_header(g);
  emit_lets(g);
  blank(g);
  /* a finding on the whole model is placed at the key its family comes
   * from: the generated `model` line has no place in the config */
  const char *family_key = spelled(g->cfg, "model_type");
  open_block(g, family_key ? family_key : spelled(g->cfg, "architectures"),
             m->name);
  line(g, "torch_dtype", "dtype %s", m->dtype);
  line(g, NULL, "mode %s", m->phase == PH_TRAIN ? "train" : "inference");
  bool any = m->seq_par;
  for (int i = 0; i < NPAR; i++) any = any || m->par[i];
  if (any) {
    StrBuf sb = {0};
    int n = 0;
    if (!par(m, "gpus_per_node")) {
      sb_puts(&sb, "gpus_per_node = ");
      const char *f[] = {"tensor", "pipeline", "data"};
      int k = 0;
      for (int i = 0; i < 3; i++)
        if (par(m, f[i])) sb_printf(&sb, "%s%s", k++ ? " * " : "", f[i]);
      if (!k) sb_puts(&sb, "1");
      n++;
    }
    for (int i = 0; i < NPAR; i++)
      if (m->par[i])
        sb_printf(&sb, "%s%s = %s", n++ ? "; " : "", par_keys[i], par_keys[i]);
    if (m->seq_par) sb_printf(&sb, "%ssequence_parallel = true", n++ ? "; " : "");
    line(g, NULL, "parallel { %s }", sb_str(&sb));
    sb_free(&sb);
  }
  blank(g);
  if (m->f & F_ENCDEC) {
    emit_encdec_body(g);
  } else {
    emit_embeddings(g);
    blank(g);
    emit_layers(g);
    emit_head(g);
  }
  close_block(g);
}

/* -------------------------------------------------------- the importer */

bool hf_recognises(const char *path, const unsigned char *head, size_t n);
ImportStatus hf_translate(const char *path, const ImportOptions *o,
                          Imported *out);

/* A config is a few kB; it is read to the limit every text input has
 * (R-HF-014), a regular file refused by its size before a byte is read,
 * and anything else (a FIFO, /dev/zero) cut off one read past it. */
#define HF_MAX_BYTES ((size_t)64 << 20)
#define HF_TOO_LARGE "file too large (more than 64 MiB)"

/* Reads the whole file; NULL with *err an errno on failure, EFBIG past
 * HF_MAX_BYTES. */
static char *slurp(const char *path, size_t *len, int *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    *err = errno;
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 &&
      (S_ISDIR(st.st_mode) ||
       (S_ISREG(st.st_mode) && (uint64_t)st.st_size > HF_MAX_BYTES))) {
    *err = S_ISDIR(st.st_mode) ? EISDIR : EFBIG;
    fclose(f);
    return NULL;
  }
  StrBuf sb = {0};
  char buf[1 << 16];
  size_t k;
  bool big = false;
  while (!big && (k = fread(buf, 1, sizeof buf, f)) > 0) {
    big = sb.len + k > HF_MAX_BYTES;
    if (!big) sb_putn(&sb, buf, k);
  }
  int bad = ferror(f) ? (errno ? errno : EIO) : big ? EFBIG : 0;
  fclose(f);
  if (bad) {
    sb_free(&sb);
    *err = bad;
    return NULL;
  }
  *len = sb.len;
  if (!sb.data) return xstrdup("");
  return sb.data;
}

bool hf_recognises(const char *path, const unsigned char *head, size_t n) {
  (void)head, (void)n;
  size_t len = strlen(path);
  if (len < 5 || strcmp(path + len - 5, ".json") != 0) return false;
  struct stat st; /* a FIFO is read once, by the importer: judged by name */
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return true;
  int err = 0;
  size_t sz = 0;
  char *text = slurp(path, &sz, &err);
  if (!text) return true; /* ours to report: it is named .json */
  json_t *root = json_loadb(text, sz, 0, NULL);
  bool ours = !root || (json_is_object(root) &&
                        (json_object_get(root, "model_type") ||
                         json_object_get(root, "architectures")));
  json_decref(root);
  free(text);
  return ours;
}

/* The model of a config whose family is known: read, checked, written. */
static ImportStatus generate(Cfg *c, const ImportOptions *o, Imported *out) {
  Config m = {0};
  if (c->fam->features & F_ENCDEC) read_encdec(c, o, &m);
  else read_model(c, o, &m);
  if (!c->error) check_layers(c, &m);
  ImportStatus status = IMPORT_INVALID;
  if (!c->error) {
    warn_fields(c, &m, out);
    char *name = model_name(c->path, c->fam);
    StrBuf head = {0};
    sb_printf(&head, "model %s", name);
    m.name = sb_str(&head);
    Gen g = {.m = &m, .cfg = c};
    strmap_init(&g.weights);
    strmap_init(&g.values);
    strmap_init(&g.lets);
    emit_model(&g);
    strmap_free(&g.weights);
    strmap_free(&g.values);
    strmap_free(&g.lets);
    for (size_t i = 0; i + sizeof(char *) <= g.names.len; i += sizeof(char *)) {
      char *key;
      memcpy(&key, g.names.data + i, sizeof key);
      free(key);
    }
    sb_free(&g.names);
    out->text = g.text.data ? g.text.data : xstrdup("");
    out->len = g.text.len;
    out->origins = g.origins;
    out->norigins = g.nlines;
    sb_free(&head);
    free(name);
    status = IMPORT_OK;
  }
  free(m.mlp_only);
  free(m.sliding_at);
  free(m.nope_at);
  return status;
}

/* A multimodal config's language model is its text_config (R-FAM-005):
 * the fields are read from there, the storage dtype from the whole config
 * when text_config has none. */
static bool enter_text_config(Cfg *c) {
  if (!(c->fam->features & F_TEXT_CONFIG)) return true;
  json_t *t = json_object_get(c->root, "text_config");
  if (!json_is_object(t)) {
    cfg_fail(c, t ? "text_config" : "model_type", "a %s config holds its "
             "language model in 'text_config', an object", c->fam->model_type);
    return false;
  }
  const char *dt[] = {"torch_dtype", "dtype"};
  for (int i = 0; i < 2; i++) {
    json_t *v = json_object_get(c->root, dt[i]);
    if (v && !json_object_get(t, dt[i])) json_object_set(t, dt[i], v);
  }
  c->outer = c->root;
  c->root = t;
  index_text_config(c);
  return true;
}

ImportStatus hf_translate(const char *path, const ImportOptions *o,
                          Imported *out) {
  int err = 0;
  Cfg c = {.path = path};
  char *text = o && o->text ? xmalloc(o->text_len + 1) : slurp(path, &c.len, &err);
  if (o && o->text) {
    memcpy(text, o->text, o->text_len);
    text[c.len = o->text_len] = '\0';
  }
  if (!text) {
    StrBuf sb = {0};
    if (err == EFBIG) sb_printf(&sb, "cannot read '%s': " HF_TOO_LARGE, path);
    else sb_printf(&sb, "cannot open '%s': %s", path, strerror(err));
    out->error = xstrdup(sb_str(&sb));
    sb_free(&sb);
    return IMPORT_UNREADABLE;
  }
  c.text = text;
  strmap_init(&c.keys);
  json_error_t je;
  c.root = json_loadb(text, c.len, JSON_REJECT_DUPLICATES, &je);
  ImportStatus status = IMPORT_INVALID;
  if (!c.root) {
    StrBuf sb = {0};
    sb_printf(&sb, "%s:%d:%d: invalid JSON: %s", path, je.line, je.column, je.text);
    c.error = xstrdup(sb_str(&sb));
    sb_free(&sb);
  } else if (!json_is_object(c.root)) {
    StrBuf sb = {0};
    sb_printf(&sb, "%s: a Hugging Face config is a JSON object", path);
    c.error = xstrdup(sb_str(&sb));
    sb_free(&sb);
  } else if ((index_keys(&c), c.fam = family_of(&c)) != NULL &&
             enter_text_config(&c)) {
    status = generate(&c, o, out);
  }
  if (status != IMPORT_OK) out->error = c.error, c.error = NULL;
  free(c.error);
  for (size_t i = 0; i < c.nat; i++) free(c.at[i].key);
  free(c.at);
  strmap_free(&c.keys);
  sb_free(&c.read);
  json_decref(c.outer ? c.outer : c.root);
  if (status == IMPORT_OK) { /* R-DIAG-001: diagnostics are placed in it */
    out->original = text;
    out->original_len = c.len;
  } else {
    free(text);
  }
  return status;
}
