package io.directlog.broker.protocol;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The APIs and version ranges the broker advertises in ApiVersions: a curated table, never the codec's
 * {@code latestVersion()}, so that upgrading kafka-clients cannot silently advertise new semantics.
 * <p>
 * Every version in each range is served. The lower bounds keep librdkafka's (up to 2.11.0) exact-version feature
 * checks working: Produce starts at 0 (as Kafka 4.x advertises it, KAFKA-18659) although the codec parses 3+ only,
 * Fetch at 4, FindCoordinator at 0. Fetch stops at 17 (18 adds KIP-1166's high-watermark field).
 * <p>
 * Immutable; thread-safe.
 */
public final class SupportedApis
{
    private static final Map<ApiKeys, short[]> RANGES;

    static
    {
        final Map<ApiKeys, short[]> m = new EnumMap<>(ApiKeys.class);
        m.put(ApiKeys.PRODUCE, range(0, 13));
        m.put(ApiKeys.FETCH, range(4, 17));
        m.put(ApiKeys.LIST_OFFSETS, range(1, 10));
        m.put(ApiKeys.METADATA, range(0, 13));
        m.put(ApiKeys.OFFSET_COMMIT, range(2, 9));
        m.put(ApiKeys.OFFSET_FETCH, range(1, 9));
        m.put(ApiKeys.FIND_COORDINATOR, range(0, 6));
        m.put(ApiKeys.JOIN_GROUP, range(0, 9));
        m.put(ApiKeys.HEARTBEAT, range(0, 4));
        m.put(ApiKeys.LEAVE_GROUP, range(0, 5));
        m.put(ApiKeys.SYNC_GROUP, range(0, 5));
        m.put(ApiKeys.DESCRIBE_GROUPS, range(0, 5));
        m.put(ApiKeys.LIST_GROUPS, range(0, 5));
        m.put(ApiKeys.API_VERSIONS, range(0, 4));
        m.put(ApiKeys.CREATE_TOPICS, range(2, 7));
        m.put(ApiKeys.DELETE_TOPICS, range(1, 6));
        m.put(ApiKeys.INIT_PRODUCER_ID, range(0, 5));
        m.put(ApiKeys.DELETE_GROUPS, range(0, 2));
        m.put(ApiKeys.DESCRIBE_CONFIGS, range(1, 4));
        m.put(ApiKeys.ALTER_CONFIGS, range(0, 2));
        m.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, range(0, 1));
        m.put(ApiKeys.CREATE_PARTITIONS, range(0, 3));
        m.put(ApiKeys.DESCRIBE_CLUSTER, range(0, 1));
        m.put(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, range(0, 0));
        // kafka-clients validates positions after a leader change with v3+ only; 2 is the codec's oldest
        m.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, range(2, 4));
        RANGES = Collections.unmodifiableMap(m);
    }

    private SupportedApis()
    {
    }

    private static short[] range(final int min, final int max)
    {
        return new short[] {(short)min, (short)max};
    }

    /** @return the advertised ranges: key to {min, max}. */
    public static Map<ApiKeys, short[]> ranges()
    {
        return RANGES;
    }

    /**
     * @param key     the API.
     * @param version the request's version.
     * @return true when the broker advertises that version of that API.
     */
    public static boolean isSupported(final ApiKeys key, final short version)
    {
        final short[] r = RANGES.get(key);
        return r != null && version >= r[0] && version <= r[1];
    }

    /**
     * @param key the API.
     * @return the lowest advertised version the codec can also parse (Produce is advertised from 0, parsed from 3).
     */
    public static short lowestParsable(final ApiKeys key)
    {
        return (short)Math.max(RANGES.get(key)[0], key.oldestVersion());
    }

    /** @return the ApiVersions body listing every advertised API. */
    public static ApiVersionsResponseData apiVersionsResponse()
    {
        final ApiVersionsResponseData data = new ApiVersionsResponseData().setErrorCode(Errors.NONE.code());
        RANGES.forEach((key, r) -> data.apiKeys().add(new ApiVersionsResponseData.ApiVersion()
            .setApiKey(key.id).setMinVersion(r[0]).setMaxVersion(r[1])));
        return data;
    }

    /** @return KIP-511's answer to an ApiVersions version we do not serve: error 35 and our ApiVersions range. */
    public static ApiVersionsResponseData unsupportedApiVersionsResponse()
    {
        final short[] r = RANGES.get(ApiKeys.API_VERSIONS);
        final ApiVersionsResponseData data = new ApiVersionsResponseData()
            .setErrorCode(Errors.UNSUPPORTED_VERSION.code());
        data.apiKeys().add(new ApiVersionsResponseData.ApiVersion()
            .setApiKey(ApiKeys.API_VERSIONS.id).setMinVersion(r[0]).setMaxVersion(r[1]));
        return data;
    }
}
