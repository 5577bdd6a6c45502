package io.directlog.broker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.directlog.broker.topic.Topic;
import io.directlog.broker.topic.TopicConfig;
import io.directlog.broker.topic.TopicRegistry;

/**
 * AlterConfigs (the whole set of a topic's configs is replaced: what is not given reverts to its default) and
 * IncrementalAlterConfigs (KIP-339: SET, DELETE, and APPEND/SUBTRACT for the list config {@code cleanup.policy}),
 * for topics. The change is stored in the metadata log and applied to the partition logs
 * ({@link TopicRegistry#alterConfigs}); {@code segment.bytes} cannot change after creation. Broker configs are
 * static: changing one gets INVALID_CONFIG.
 * <p>
 * Thread-safe; runs on the broker's admin thread (it writes the metadata log and the logs' configs).
 */
final class AlterConfigsHandler
{
    private static final byte RESOURCE_TOPIC = 2;
    private static final byte RESOURCE_BROKER = 4;
    private static final byte OP_SET = 0;
    private static final byte OP_DELETE = 1;
    private static final byte OP_APPEND = 2;
    private static final byte OP_SUBTRACT = 3;

    private final TopicRegistry topics;

    AlterConfigsHandler(final TopicRegistry topics)
    {
        this.topics = topics;
    }

    AlterConfigsResponseData alter(final AlterConfigsRequestData req)
    {
        final AlterConfigsResponseData resp = new AlterConfigsResponseData();
        for (final AlterConfigsRequestData.AlterConfigsResource res : req.resources())
        {
            final AlterConfigsResponseData.AlterConfigsResourceResponse r =
                new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(res.resourceType())
                    .setResourceName(res.resourceName()).setErrorCode(Errors.NONE.code());
            try
            {
                final Map<String, String> explicit = new LinkedHashMap<>();
                for (final AlterConfigsRequestData.AlterableConfig c : res.configs())
                {
                    explicit.put(c.name(), c.value());
                }
                apply(res.resourceType(), res.resourceName(), explicit, req.validateOnly());
            }
            catch (final ApiException e)
            {
                r.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
            resp.responses().add(r);
        }
        return resp;
    }

    IncrementalAlterConfigsResponseData incrementalAlter(final IncrementalAlterConfigsRequestData req)
    {
        final IncrementalAlterConfigsResponseData resp = new IncrementalAlterConfigsResponseData();
        for (final IncrementalAlterConfigsRequestData.AlterConfigsResource res : req.resources())
        {
            final IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse r =
                new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(res.resourceType()).setResourceName(res.resourceName())
                    .setErrorCode(Errors.NONE.code());
            try
            {
                final Topic topic = topic(res.resourceType(), res.resourceName());
                final Map<String, String> explicit = new LinkedHashMap<>(topic.config().explicit());
                for (final IncrementalAlterConfigsRequestData.AlterableConfig c : res.configs())
                {
                    change(topic.config(), explicit, c);
                }
                apply(res.resourceType(), res.resourceName(), explicit, req.validateOnly());
            }
            catch (final ApiException e)
            {
                r.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
            resp.responses().add(r);
        }
        return resp;
    }

    private static void change(final TopicConfig current, final Map<String, String> explicit,
        final IncrementalAlterConfigsRequestData.AlterableConfig c)
    {
        switch (c.configOperation())
        {
            case OP_SET -> explicit.put(c.name(), c.value());
            case OP_DELETE -> explicit.remove(c.name());
            case OP_APPEND, OP_SUBTRACT ->
            {
                if (!TopicConfig.CLEANUP_POLICY.equals(c.name()))
                {
                    throw new InvalidConfigurationException("Config '" + c.name() + "' is not a list: " +
                        (c.configOperation() == OP_APPEND ? "APPEND" : "SUBTRACT") + " is only for list configs");
                }
                final String base = explicit.containsKey(c.name()) ? explicit.get(c.name()) : current.value(c.name());
                final List<String> items = new ArrayList<>(split(base));
                for (final String item : split(c.value()))
                {
                    if (c.configOperation() == OP_APPEND && !items.contains(item))
                    {
                        items.add(item);
                    }
                    else if (c.configOperation() == OP_SUBTRACT)
                    {
                        items.remove(item);
                    }
                }
                explicit.put(c.name(), String.join(",", items));
            }
            default -> throw new InvalidRequestException("Unknown config operation " + c.configOperation() +
                " for '" + c.name() + "'");
        }
    }

    private static List<String> split(final String list)
    {
        if (list == null || list.isBlank())
        {
            return List.of();
        }
        return Arrays.stream(list.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }

    private Topic topic(final byte resourceType, final String name)
    {
        if (resourceType == RESOURCE_BROKER)
        {
            throw new InvalidConfigurationException("Broker configs are static on this broker (BrokerConfig); " +
                "they cannot be changed at runtime");
        }
        if (resourceType != RESOURCE_TOPIC)
        {
            throw new InvalidRequestException("Resource type " + resourceType + " is not supported");
        }
        final Topic topic = topics.topic(name);
        if (topic == null)
        {
            throw new org.apache.kafka.common.errors.UnknownTopicOrPartitionException("Topic '" + name +
                "' does not exist.");
        }
        return topic;
    }

    private void apply(final byte resourceType, final String name, final Map<String, String> explicit,
        final boolean validateOnly)
    {
        topic(resourceType, name);
        try
        {
            topics.alterConfigs(name, explicit, validateOnly);
        }
        catch (final IllegalArgumentException e)
        {
            throw new InvalidConfigurationException(e.getMessage());
        }
    }
}
