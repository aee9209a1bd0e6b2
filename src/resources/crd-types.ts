/**
 * Spec and status types of the custom resources (group gateway.service.io, v1alpha1). These are
 * the one TypeScript home of the CRD shapes in crds/; keep them in step with the YAML.
 */
import type { ProviderKind, RouteRetryCondition } from '../stores/records.ts';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface ResourceStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}

export interface TenantSpec {
  displayName: string;
  /** The handle organisations are found by (admin `organization(slug)`); defaults to metadata.name. */
  slug?: string;
  /** The liable parent tenant. */
  parentRef?: { name: string };
  region?: string;
  billingMode?: 'delegated' | 'pooled';
  /** Referral tag, set once at creation and never changed; never logged. */
  referral?: string;
  /** The owner's e-mail address, given at organisation creation. */
  contactEmail?: string;
  /** Every key, token and PAT of the tenant (and of its children) is refused with 403. */
  suspended?: boolean;
  /** An `@slug/` that matches no Connection is refused (404) instead of served on the platform key. */
  strictByok?: boolean;
  workspaces: { id: string; name: string }[];
}

/** The Tenant's status: conditions and the slug in force. */
export interface TenantStatus extends ResourceStatus {
  /** spec.slug, else metadata.name (a printer column). */
  slug?: string;
}

export interface CachePolicySpec {
  /** Defaults to metadata.name. */
  policyName?: string;
  /** Absent: tenant-wide. */
  workspace?: string;
  ttlSeconds?: number;
  swrSeconds?: number;
  maxTtlSeconds?: number;
  defaultTags?: string[];
  semantic?: boolean;
}

export interface ConnectionSpec {
  provider: ProviderKind;
  /** Defaults to metadata.name; unique per tenant. */
  slug?: string;
  /** Deprecated alias of slug; slug wins. */
  label?: string;
  secretRef: { name: string };
  baseUrl?: string;
  awsRegion?: string;
  vertexProject?: string;
  vertexRegion?: string;
  workspace?: string;
  defaultModel?: string;
  dailyCapMicros?: number;
}

/** One upstream of a ModelRoute. */
export interface ModelRouteTargetSpec {
  /** `provider/model` or `@slug/model`: any model string the gateway routes, never a route's name. */
  model: string;
  /** Share within its priority tier (>= 0; default 1); 0 = never picked by weight. */
  weight?: number;
  /** The tier, lowest first; a higher tier is a fallback (default 0). */
  priority?: number;
}

export interface ModelRouteSpec {
  /** The name clients send as `model`; defaults to metadata.name. Never holds a `/`. */
  model?: string;
  /** Absent: tenant-wide (a workspace route of the same model wins). */
  workspace?: string;
  /** Default weighted. */
  strategy?: 'weighted' | 'leastBusy';
  targets: ModelRouteTargetSpec[];
  retry?: {
    /** Attempts in all, across targets, the first included (1..10; default 3). */
    maxAttempts?: number;
    /** Default: all four. */
    on?: RouteRetryCondition[];
    backoffMs?: number;
    /** Retry-After is honoured up to this. */
    maxBackoffMs?: number;
  };
  /** Per attempt. */
  firstByteTimeoutMs?: number;
  circuitBreaker?: { consecutiveFailures?: number; openSeconds?: number };
  /** In the platform tenant only: serves every tenant that has no route of this model. */
  shared?: boolean;
}
