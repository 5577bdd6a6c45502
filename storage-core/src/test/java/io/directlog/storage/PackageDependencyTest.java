package io.directlog.storage;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package structure of storage-core as rules over its compiled classes (ArchUnit): no package dependency
 * cycles, and the parts below a log ({@code format}, {@code io}, {@code page}, {@code cache}, {@code writer}) depend
 * neither on the parts above them nor on the API's facade. The package-info of each package says the same in words.
 */
class PackageDependencyTest
{
    private static final String ROOT = "io.directlog.storage";
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses()
    {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);
    }

    /** One slice per package (ArchUnit's "(*).." patterns would leave the API package itself out). */
    private static final SliceAssignment PACKAGES = new SliceAssignment()
    {
        @Override
        public SliceIdentifier getIdentifierOf(final JavaClass javaClass)
        {
            final String name = javaClass.getPackageName();
            return name.equals(ROOT) || name.startsWith(ROOT + ".") ? SliceIdentifier.of(name) :
                SliceIdentifier.ignore();
        }

        @Override
        public String getDescription()
        {
            return "packages of " + ROOT;
        }
    };

    /**
     * The one known exception, listed so that any other edge closing a cycle fails: the API's entry point
     * {@link LogStore#open} calls into {@code internal} (the JVM check and {@code StoreEngine.open}), and
     * {@code internal} implements the API. Every cycle between the packages today (six, through {@code internal}
     * alone or through {@code cache} or {@code log} back to the API's value types) closes through this edge.
     * Removing it needs the entry point to find its engine indirectly (a {@code ServiceLoader} provider), which
     * buys nothing but indirection while there is one engine.
     */
    @Test
    void packagesHaveNoDependencyCyclesButTheApiEntryPoint()
    {
        slices().assignedFrom(PACKAGES).should().beFreeOfCycles()
            .ignoreDependency(JavaClass.Predicates.equivalentTo(LogStore.class),
                JavaClass.Predicates.resideInAPackage(ROOT + ".internal"))
            .check(classes);
    }

    @Test
    void partsBelowALogDependNeitherOnLogNorOnInternal()
    {
        noClasses().that().resideInAnyPackage(ROOT + ".format", ROOT + ".io", ROOT + ".page", ROOT + ".cache",
            ROOT + ".writer")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".log..", ROOT + ".internal..")
            .check(classes);
    }

    @Test
    void nothingButTheApiEntryPointReachesInternal()
    {
        noClasses().that().resideInAnyPackage(ROOT + ".format", ROOT + ".io", ROOT + ".page", ROOT + ".cache",
            ROOT + ".writer", ROOT + ".log")
            .should().dependOnClassesThat().resideInAPackage(ROOT + ".internal")
            .check(classes);
    }

    @Test
    void partsBelowALogDoNotUseTheApiFacade()
    {
        noClasses().that().resideInAnyPackage(ROOT + ".format", ROOT + ".io", ROOT + ".page", ROOT + ".cache",
            ROOT + ".writer")
            .should().dependOnClassesThat().belongToAnyOf(LogStore.class, Log.class, LogReader.class,
                StoreConfig.class, LogConfig.class)
            .check(classes);
    }

    @Test
    void formatIoAndPageStandAlone()
    {
        noClasses().that().resideInAnyPackage(ROOT + ".format", ROOT + ".io", ROOT + ".page")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT, ROOT + ".cache", ROOT + ".writer",
                ROOT + ".log", ROOT + ".internal")
            .check(classes);
    }
}
